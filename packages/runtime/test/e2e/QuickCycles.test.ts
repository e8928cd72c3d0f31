// End to end: the cycles done at once (the echoes of the operator's own patches, tried without
// any effect when no debug line is logged and no trace exported) change nothing an operator's
// user can see. The same life of a batch of objects — creation with a mandatory delete handler
// (so the finalizer first), a change of half of them, the deletion of all — is run once with
// debug lines on (every cycle in full) and once at the info level (the echoes done at once): the
// handlers' calls, the writes to each object and the end state are the same, and as expected.
import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import * as Effect from "effect/Effect";
import * as References from "effect/References";
import * as Harness from "../fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";
const NAMES = Array.from({ length: 12 }, (_, i) => `q${i}`);
const CHANGED = NAMES.filter((_, i) => i % 2 === 0);

/** The handlers' calls, each object's writes (in order) and which objects are left. */
interface Life {
  readonly calls: ReadonlyArray<string>;
  readonly writes: Readonly<Record<string, ReadonlyArray<string>>>;
  readonly left: ReadonlyArray<string>;
}

const life = (level: "Debug" | "Info") =>
  Harness.scenario(({ lines, log }) =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const registry = Registry.make();
      registry.on.create(RES, function createFn({ name }) {
        calls.push(`create ${name}`);
        return { created: true };
      });
      registry.on.update(RES, function updateFn({ name }) {
        calls.push(`update ${name}`);
      });
      registry.on.delete(RES, function deleteFn({ name }) {
        calls.push(`delete ${name}`);
      });
      yield* Harness.start(registry, { lines, log });
      for (const name of NAMES) yield* Harness.create(name);
      yield* Harness.settle(3);
      for (const name of CHANGED) yield* Harness.patch(name, { spec: { field: "changed" } });
      yield* Harness.settle(3);
      for (const name of NAMES) yield* Harness.remove(name);
      yield* Harness.settle(3);

      const writes: Record<string, Array<string>> = {};
      for (const write of log.writes()) {
        const name = /\/kopfexamples\/([^/?]+)/.exec(write.path)?.[1];
        if (name === undefined || !NAMES.includes(name)) continue;
        const part = write.path.endsWith("/status") ? "status" : "object";
        const list = writes[name] ?? [];
        list.push(`${write.method} ${part} ${write.contentType?.split("/")[1] ?? ""}`);
        writes[name] = list;
      }
      const left: Array<string> = [];
      for (const name of NAMES) if (yield* Harness.exists(name)) left.push(name);
      return { calls: [...calls].sort(), writes, left } satisfies Life;
    }).pipe(
      Effect.provideService(References.MinimumLogLevel, level),
      Effect.provideService(References.TracerEnabled, false),
    ),
  );

describe("cycles done at once", () => {
  it.effect("change nothing a user sees: the same handler calls, writes and end state as in full", () =>
    Effect.gen(function* () {
      const full = yield* life("Debug");
      const quick = yield* life("Info");
      assert.deepStrictEqual(quick, full);
      const expected = [
        ...NAMES.map((n) => `create ${n}`),
        ...CHANGED.map((n) => `update ${n}`),
        ...NAMES.map((n) => `delete ${n}`),
      ].sort();
      assert.deepStrictEqual(quick.calls, expected);
      assert.deepStrictEqual(quick.left, []);
      // The operator's writes (with the test's own: its change and its DELETE, both recorded): the
      // finalizer, the results, the marks; the change's marks; the finalizer's release. No write
      // more, none less.
      const created = [
        "PATCH object json-patch+json",
        "PATCH status merge-patch+json",
        "PATCH object merge-patch+json",
      ];
      const changed = ["PATCH object merge-patch+json", "PATCH object merge-patch+json"];
      const deleted = ["DELETE object ", "PATCH object json-patch+json"];
      for (const name of NAMES)
        assert.deepStrictEqual(
          quick.writes[name],
          [...created, ...(CHANGED.includes(name) ? changed : []), ...deleted],
          name,
        );
    }),
  );
});
