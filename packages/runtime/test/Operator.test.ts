// Covers the operator's option validation (Kopf's spawn_tasks checks), the settings changed by
// startup handlers (validated, then used), the login activity as the vault's login, and the
// logging layer (format and minimum level).
import { assert, describe, it } from "@effect/vitest";
import { ConnectionInfo } from "@kopf/client";
import { Registry } from "@kopf/registry";
import { OperatorSettings, type Settings } from "@kopf/settings";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Result from "effect/Result";
import * as Logging from "../src/Logging.ts";
import * as Operator from "../src/Operator.ts";
import * as Harness from "./fixtures/Harness.ts";

describe("Operator", () => {
  it.effect("refuses clusterwide together with namespaces", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(
          Operator.run({ registry: Registry.make(), clusterwide: true, namespaces: ["ns1"] }),
        );
        assert.isTrue(Exit.isFailure(exit));
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined;
        assert.include(JSON.stringify(error), "InvalidOptions");
      }),
    ),
  );

  it.effect("without namespaces nor clusterwide, warns and serves the cluster", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.event("kopfexamples.kopf.dev", function eventFn({ name }) {
          seen.push(String(name));
        });
        yield* Harness.setup;
        yield* Harness.create("e1");
        yield* Harness.start(registry, { lines, log }, { namespaces: undefined });
        yield* Harness.settle(1);
        assert.isTrue(lines.some((l) => l.startsWith("Absence of either namespaces or cluster-wide flag")));
        assert.deepStrictEqual(seen, ["e1"]);
      }),
    ),
  );

  it.effect("invalid settings left by startup handlers fail the startup, naming the field", () =>
    Harness.run(() =>
      Effect.gen(function* () {
        yield* Harness.setup;
        const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
        registry.on.startup(function configure({ settings }) {
          settings.queueing.workerLimit = 0;
        });
        const tasks: Array<string> = [];
        const exit = yield* Effect.exit(
          Operator.run({
            registry,
            namespaces: ["ns1"],
            tasks: [() => Effect.sync(() => tasks.push("ran"))],
          }),
        );
        assert.isTrue(Exit.isFailure(exit));
        const error = JSON.stringify(Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined);
        assert.include(error, "StartupFailed");
        assert.include(error, "queueing.workerLimit");
        assert.deepStrictEqual(tasks, []);
      }),
    ),
  );

  it.effect("the settings changed by startup handlers are the operator's from then on", () =>
    Harness.run(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
        registry.on.startup(function configure({ settings }) {
          settings.persistence.finalizer = "example.com/finalizer";
          settings.networking.errorBackoffs = [5];
        });
        const seen: Array<unknown> = [];
        const running = yield* Harness.start(
          registry,
          { lines, log },
          {
            tasks: [
              (context) =>
                Effect.gen(function* () {
                  const provided = yield* OperatorSettings;
                  seen.push(provided.persistence.finalizer, context.settings.networking.errorBackoffs);
                }),
            ],
          },
        );
        yield* Harness.settle(1);
        assert.deepStrictEqual(seen, ["example.com/finalizer", [5]]);
        yield* running.operator.stop;
      }),
    ),
  );

  it.effect("login runs the login handlers and validates their results", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.login(function loginFn() {
        return Result.getOrThrow(ConnectionInfo.make({ server: "https://example.invalid", token: "t" }));
      });
      const credentials = yield* Operator.login(registry);
      assert.deepStrictEqual(Object.keys(credentials), ["loginFn"]);

      const failing = Registry.make();
      failing.on.login(function loginFn() {
        return "not a connection";
      });
      const error = yield* Effect.flip(Operator.login(failing));
      assert.strictEqual(error._tag, "LoginError");
    }),
  );

  it.effect("the logging layer formats lines and filters by level", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      yield* Effect.logDebug("hidden");
      yield* Effect.logWarning("shown").pipe(Logging.annotateObject({ name: "n1", namespace: "ns1" }));
      assert.deepStrictEqual(lines, ["[ns1/n1] shown"]);
    }).pipe(
      Effect.provide(Logging.layer({ format: "plain", level: "Info", write: (line) => lines.push(line) })),
    );
  });
});
