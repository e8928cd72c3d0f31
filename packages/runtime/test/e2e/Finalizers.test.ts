// End to end (docs/behaviour/processing.md#cause-order steps 5 and 8, docs/behaviour/causes.md#reasons): a mandatory on.delete handler makes the operator
// add its finalizer first (one cycle, one JSON patch guarded by the resource version), then the
// create handler runs; deleting the object runs the delete handler and releases the finalizer,
// so the object really goes away. Optional delete handlers need no finalizer; a finalizer no
// handler needs any more is removed. Counts the API writes per created object.
import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import * as Effect from "effect/Effect";
import * as Harness from "../fixtures/Harness.ts";

const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";
const summary = (log: { patches(): ReadonlyArray<{ path: string; contentType: string | undefined }> }) =>
  log
    .patches()
    .map((w) => `${w.path.endsWith("/status") ? "status" : "object"} ${w.contentType?.split("/")[1]}`);

describe("finalizers", () => {
  it.effect("a trivial create handler costs one write; with a mandatory delete handler, two", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.create("kopfexamples.kopf.dev", function createFn() {});
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(3);
        assert.deepStrictEqual(summary(log), ["object merge-patch+json"]);

        const withDelete = Registry.make();
        withDelete.on.create("kopfexamples.kopf.dev", function createFn() {});
        withDelete.on.delete("kopfexamples.kopf.dev", function deleteFn() {});
        log.clear();
        return withDelete;
      }).pipe(
        Effect.flatMap((withDelete) =>
          Harness.scenario(({ lines, log, ns }) =>
            Effect.gen(function* () {
              yield* Harness.start(withDelete, { lines, log });
              yield* Harness.create("e2");
              yield* Harness.settle(3);
              assert.deepStrictEqual(summary(log), ["object json-patch+json", "object merge-patch+json"]);
              const body = yield* Harness.get("e2");
              assert.deepStrictEqual(body.metadata?.finalizers, [FINALIZER]);
              assert.include(lines, `[${ns}/e2] Adding the finalizer, thus preventing the actual deletion.`);
            }),
          ),
        ),
      ),
    ),
  );

  it.effect("a finalizer the API server rejects is an invalid patch: an error line and a Warning event", () =>
    Harness.scenario(
      ({ lines, log, ns }) =>
        Effect.gen(function* () {
          const registry = Registry.make();
          registry.on.create("kopfexamples.kopf.dev", function createFn() {});
          registry.on.delete("kopfexamples.kopf.dev", function deleteFn() {});
          yield* Harness.start(registry, { lines, log });
          yield* Harness.create("e1");
          yield* Harness.settle(3);
          const rejected = lines.filter((line) => line.includes("rejected the patch as invalid"));
          assert.lengthOf(rejected, 1);
          assert.include(rejected[0], `[${ns}/e1]`);
          assert.include(rejected[0], "metadata.finalizers");
          const warnings = log
            .events()
            .map((r) => r.body as { type: string; reason: string; message: string })
            .filter((e) => e.reason === "InvalidPatch");
          assert.lengthOf(warnings, 1);
          assert.strictEqual(warnings[0]?.type, "Warning");
          // Not retried blindly: one rejected JSON patch, and no conflict taken for it.
          assert.lengthOf(
            log.patches().filter((r) => r.contentType === "application/json-patch+json"),
            1,
          );
          assert.isEmpty(lines.filter((line) => line.includes("Patching met a newer object")));
          assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, undefined);
        }),
      { persistence: { finalizer: "not a valid finalizer!" } },
    ),
  );

  it.effect("deletion runs the delete handler, then releases the object", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.create("kopfexamples.kopf.dev", function createFn() {
          calls.push("create");
        });
        registry.on.delete("kopfexamples.kopf.dev", function deleteFn({ name }) {
          calls.push(`delete ${name}`);
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(3);
        yield* Harness.remove("e1");
        yield* Harness.settle(3);
        assert.deepStrictEqual(calls, ["create", "delete e1"]);
        assert.isFalse(yield* Harness.exists("e1"));
        assert.include(lines, `[${ns}/e1] Removing the finalizer, thus allowing the actual deletion.`);
        assert.include(lines, `[${ns}/e1] Deletion is processed: 1 succeeded; 0 failed.`);
        assert.include(lines, `[${ns}/e1] Deleted, really deleted, and we are notified.`);
        // Releasing was the last write: the DELETED event (on a real server it still shows the
        // finalizer, as the object's last stored state) is never patched.
        assert.deepStrictEqual(Harness.lastPatch(log), [
          "json-patch+json",
          { op: "remove", path: "/metadata/finalizers" },
        ]);
      }),
    ),
  );

  it.effect("an optional delete handler adds no finalizer; a stale finalizer is removed", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.delete("kopfexamples.kopf.dev", { optional: true }, function deleteFn() {
          calls.push("delete");
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(3);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, undefined);

        yield* Harness.patch("e1", { metadata: { finalizers: [FINALIZER] } });
        yield* Harness.settle(3);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, undefined);
        assert.include(lines, `[${ns}/e1] Removing the finalizer, as there are no handlers requiring it.`);
        yield* Harness.remove("e1");
        yield* Harness.settle(3);
        assert.isFalse(yield* Harness.exists("e1"));
        assert.deepStrictEqual(calls, []);
      }),
    ),
  );

  it.effect("the finalizer name comes from the operator's settings", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.delete("kopfexamples.kopf.dev", function deleteFn() {});
        yield* Harness.start(
          registry,
          { lines, log },
          { settings: { persistence: { finalizer: "example.com/my-finalizer" } } },
        );
        yield* Harness.create("e1");
        yield* Harness.settle(2);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, ["example.com/my-finalizer"]);
        yield* Harness.remove("e1");
        yield* Harness.settle(2);
        assert.isFalse(yield* Harness.exists("e1"));
      }),
    ),
  );

  it.effect("startup handlers may change the settings the operator then uses", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make<{ persistence: { finalizer: string } }>();
        registry.on.startup(function configure({ settings }) {
          settings.persistence.finalizer = "example.com/from-startup";
        });
        registry.on.delete("kopfexamples.kopf.dev", function deleteFn() {});
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(2);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, ["example.com/from-startup"]);
      }),
    ),
  );
});
