// End to end across operator restarts (docs/behaviour/causes.md#resuming, docs/behaviour/progress.md, docs/behaviour/processing.md#changing-causes): progress persisted in the middle of
// a multi-handler cycle lets a new operator continue where the old one stopped without
// re-running a succeeded handler; pre-existing objects get one resume cycle; objects created
// during the downtime get create only; updates and field handlers see the diffs.
import { assert, describe, it } from "@effect/vitest";
import { Registry, TemporaryError } from "@kopf/registry";
import * as Effect from "effect/Effect";
import * as Harness from "../fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";

describe("restarts", () => {
  it.effect(
    "a restarted operator continues a multi-handler cycle and never re-runs a succeeded handler",
    () =>
      Harness.scenario(({ lines, log }) =>
        Effect.gen(function* () {
          const calls: Array<string> = [];
          const registryOf = (operator: string) => {
            const registry = Registry.make();
            registry.on.create(RES, function first() {
              calls.push(`${operator}:first`);
            });
            registry.on.create(RES, function second() {
              calls.push(`${operator}:second`);
              if (operator === "op1") throw new TemporaryError("later", { delay: 60 });
            });
            return registry;
          };
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* Harness.start(registryOf("op1"), { lines, log });
              yield* Harness.create("e1");
              yield* Harness.settle(3);
            }),
          );
          assert.deepStrictEqual(calls, ["op1:first", "op1:second"]);
          const between = yield* Harness.get("e1");
          const annotations = Harness.annotations(between);
          assert.include(JSON.parse(annotations["kopf.zalando.org/first"] ?? "{}"), {
            success: true,
            retries: 1,
          });
          assert.include(JSON.parse(annotations["kopf.zalando.org/second"] ?? "{}"), {
            success: false,
            retries: 1,
            message: "later",
          });
          assert.isUndefined(annotations[LAST_HANDLED]);

          yield* Effect.scoped(
            Effect.gen(function* () {
              const operator = yield* Effect.map(
                Harness.start(registryOf("op2"), { lines, log }),
                (r) => r.operator,
              );
              yield* Harness.settle(70);
              yield* operator.stop;
            }),
          );
          assert.deepStrictEqual(calls, ["op1:first", "op1:second", "op2:second"]);
          assert.deepStrictEqual(Harness.annotations(yield* Harness.get("e1")), {
            [LAST_HANDLED]: '{"spec":{"field":"value"}}\n',
          });
        }).pipe(Effect.scoped),
      ),
  );

  it.effect("sub-handler progress survives a restart: done children are not re-run", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const calls: Array<string> = [];
        const registryOf = (operator: string) => {
          const registry = Registry.make();
          registry.on.create(RES, function createFn({ subregistry }) {
            calls.push(`${operator}:parent`);
            subregistry.subhandler({ id: "a" }, () => {
              calls.push(`${operator}:a`);
            });
            subregistry.subhandler({ id: "b" }, () => {
              calls.push(`${operator}:b`);
              if (operator === "op1") throw new TemporaryError("later", { delay: 30 });
            });
          });
          return registry;
        };
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Harness.start(registryOf("op1"), { lines, log });
            yield* Harness.create("e1");
            yield* Harness.settle(3);
          }),
        );
        const between = Harness.annotations(yield* Harness.get("e1"));
        assert.include(JSON.parse(between["kopf.zalando.org/createFn.a"] ?? "{}"), { success: true });
        assert.include(JSON.parse(between["kopf.zalando.org/createFn.b"] ?? "{}"), {
          success: false,
          retries: 1,
        });
        assert.deepStrictEqual(JSON.parse(between["kopf.zalando.org/createFn"] ?? "{}").subrefs, [
          "createFn/a",
          "createFn/b",
        ]);
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Harness.start(registryOf("op2"), { lines, log });
            yield* Harness.settle(40);
          }),
        );
        assert.notInclude(calls, "op2:a");
        assert.include(calls, "op2:b");
        assert.deepStrictEqual(Harness.annotations(yield* Harness.get("e1")), {
          [LAST_HANDLED]: '{"spec":{"field":"value"}}\n',
        });
      }),
    ),
  );

  it.effect("pre-existing objects are resumed once; objects created meanwhile are created", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const calls: Array<string> = [];
        const registry = Registry.make();
        registry.on.create(RES, function createFn({ name }) {
          calls.push(`create ${name}`);
        });
        registry.on.resume(RES, function resumeFn({ name }) {
          calls.push(`resume ${name}`);
        });
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Harness.start(registry, { lines, log });
            yield* Harness.create("old");
            yield* Harness.settle(3);
          }),
        );
        yield* Harness.create("new");
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Harness.start(registry, { lines, log });
            yield* Harness.settle(3);
            yield* Harness.patch("old", { metadata: { labels: { touched: "yes" } } });
            yield* Harness.settle(3);
          }),
        );
        assert.deepStrictEqual(calls.sort(), ["create new", "create old", "resume old"]);
      }),
    ),
  );

  it.effect(
    "an object deleted during the downtime: delete handlers and only resume handlers with deleted=true",
    () =>
      Harness.scenario(({ lines, log }) =>
        Effect.gen(function* () {
          const calls: Array<string> = [];
          const registry = Registry.make();
          registry.on.create(RES, function createFn() {
            calls.push("create");
          });
          registry.on.delete(RES, function deleteFn() {
            calls.push("delete");
          });
          registry.on.resume(RES, function resumeFn() {
            calls.push("resume");
          });
          registry.on.resume(RES, { deleted: true }, function resumeDeletedFn() {
            calls.push("resume-deleted");
          });
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* Harness.start(registry, { lines, log });
              yield* Harness.create("e1");
              yield* Harness.settle(3);
            }),
          );
          assert.deepStrictEqual(calls, ["create"]);
          yield* Harness.remove("e1");
          assert.isTrue(yield* Harness.exists("e1"));
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* Harness.start(registry, { lines, log });
              yield* Harness.settle(5);
            }),
          );
          assert.deepStrictEqual(calls, ["create", "delete", "resume-deleted"]);
          assert.isFalse(yield* Harness.exists("e1"));
        }),
      ),
  );

  it.effect("update and field handlers get the essence diff", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const seen: Array<unknown> = [];
        const registry = Registry.make();
        registry.on.update(RES, function updateFn({ diff }) {
          seen.push(["update", diff]);
        });
        registry.on.field(RES, { field: "spec.size" }, function sizeFn({ old, new: size, reason }) {
          seen.push(["field", reason, old, size]);
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1", { size: 1 });
        yield* Harness.settle(3);
        yield* Harness.patch("e1", { spec: { size: 2 } });
        yield* Harness.settle(3);
        yield* Harness.patch("e1", { status: { ignored: true } });
        yield* Harness.settle(3);
        assert.deepStrictEqual(seen, [
          ["field", "create", undefined, 1],
          ["update", [{ op: "change", field: ["spec", "size"], old: 1, new: 2 }]],
          ["field", "update", 1, 2],
        ]);
        assert.strictEqual(
          Harness.annotations(yield* Harness.get("e1"))[LAST_HANDLED],
          '{"spec":{"size":2}}\n',
        );
      }),
    ),
  );
});
