// Covers signal handling (docs/behaviour/operator.md#tasks-start-up-and-shutdown): the first signal stops the program gracefully (its
// finalizers run, exit code 0), a second one exits at once; failures give exit code 1.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Logger from "effect/Logger";
import * as Signals from "../../src/node/Signals.ts";
import * as Operator from "../../src/Operator.ts";

const fakeProcess = () => {
  const listeners = new Map<string, () => void>();
  const exits: Array<number> = [];
  const port: Signals.ProcessPort = {
    on: (signal, listener) => void listeners.set(signal, listener),
    off: (signal) => void listeners.delete(signal),
    exit: (code) => void exits.push(code),
  };
  return { port, listeners, exits };
};

describe("Signals.stopOnSignals", () => {
  it.live("SIGTERM stops gracefully with exit code 0; a second signal exits at once", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const fake = fakeProcess();
      const cleaned: Array<string> = [];
      let noticed: string | undefined;
      const program = Effect.never.pipe(
        Effect.ensuring(
          Effect.flatMap(Effect.service(Operator.StopNotice), (notice) =>
            Effect.sync(() => {
              noticed = notice.signal;
              cleaned.push("cleanup");
            }),
          ),
        ),
      );
      const fiber = yield* Effect.forkChild(Signals.stopOnSignals(program, fake.port));
      // The listeners are installed once the forked fiber has run (later under load): wait for them.
      for (let i = 0; i < 500 && fake.listeners.size < 2; i++) yield* Effect.sleep(10);
      assert.deepStrictEqual([...fake.listeners.keys()].sort(), ["SIGINT", "SIGTERM"]);
      const sigterm = fake.listeners.get("SIGTERM");
      const sigint = fake.listeners.get("SIGINT");
      sigterm?.();
      sigint?.();
      const code = yield* Fiber.join(fiber);
      assert.strictEqual(code, 0);
      assert.deepStrictEqual(cleaned, ["cleanup"]);
      assert.deepStrictEqual(fake.exits, [1]);
      assert.include(lines, "Signal SIGTERM is received. Operator is stopping.");
      assert.strictEqual(noticed, "SIGTERM");
      assert.deepStrictEqual([...fake.listeners.keys()], []);
    }).pipe(
      Effect.provide(
        Logger.layer([Logger.make((o) => lines.push(String((o.message as Array<unknown>)[0])))]),
      ),
    );
  });

  it.live("a failing program gives exit code 1", () =>
    Effect.gen(function* () {
      const fake = fakeProcess();
      const code = yield* Signals.stopOnSignals(Effect.fail("boom"), fake.port);
      assert.strictEqual(code, 1);
      assert.deepStrictEqual(fake.exits, []);
    }).pipe(Effect.provide(Logger.layer([]))),
  );
});
