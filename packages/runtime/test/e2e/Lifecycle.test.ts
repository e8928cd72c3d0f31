// End to end (docs/behaviour/operator.md#tasks-start-up-and-shutdown, docs/behaviour/processing.md#cause-order, docs/behaviour/processing.md#patching, docs/behaviour/processing.md#throttling): startup handlers run before any event is
// handled and a failing startup stops the operator before it touches the objects; interruption
// is a graceful stop — a running handler finishes and its progress is stored, then cleanup
// runs; on.event handlers see every event; API failures while patching are throttled per object
// and recovered from; a 404 while patching (object gone) is not an error; a 422 on the
// finalizer's JSON patch is retried on the next cycle.
import { assert, describe, it } from "@effect/vitest";
import { PermanentError, Registry } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Operator from "../../src/Operator.ts";
import * as Posting from "../../src/Posting.ts";
import * as Harness from "../fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

describe("operator lifecycle", () => {
  it.effect("startup runs first (sharing the memo); cleanup runs on stop", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const calls: Array<string> = [];
        const registry = Registry.make();
        registry.on.startup(function startupFn({ memo }) {
          calls.push("startup");
          memo.greeting = "hi";
        });
        let body: RawBody = {};
        registry.on.create(RES, function createFn({ memo, body: created }) {
          calls.push(`create ${String(memo.greeting)}`);
          body = created;
        });
        registry.on.cleanup(function cleanupFn() {
          calls.push("cleanup");
          Posting.ambient()?.info(body, { reason: "Stopping", message: "bye" });
        });
        yield* Harness.setup;
        yield* Harness.create("e1");
        const { operator } = yield* Harness.start(registry, { lines, log });
        yield* Harness.settle(3);
        yield* operator.stop;
        assert.deepStrictEqual(calls, ["startup", "create hi", "cleanup"]);
        // Events queued by cleanup handlers are still posted.
        assert.deepStrictEqual(
          log.events().map((r) => (r.body as { reason: string }).reason),
          ["Stopping"],
        );
        assert.isTrue(Exit.isSuccess(yield* operator.done) || Exit.hasInterrupts(yield* operator.done));
      }),
    ),
  );

  it.effect("a failing startup stops the operator before it handles anything", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const calls: Array<string> = [];
        const registry = Registry.make();
        registry.on.startup(function startupFn() {
          throw new PermanentError("cannot start");
        });
        registry.on.create(RES, function createFn() {
          calls.push("create");
        });
        yield* Harness.setup;
        yield* Harness.create("e1");
        log.clear();
        const { operator } = yield* Harness.start(registry, { lines, log });
        yield* Harness.settle(3);
        const exit = yield* operator.done;
        assert.isTrue(Exit.isFailure(exit));
        const notReady = yield* Effect.flip(operator.ready);
        assert.strictEqual(notReady.reason, "StartupFailed");
        assert.include(JSON.stringify(Exit.isFailure(exit) ? exit.cause.reasons : []), "StartupFailed");
        assert.deepStrictEqual(calls, []);
        // Not a single API request: no discovery, no listing, no patch.
        assert.deepStrictEqual(log.requests, []);
      }),
    ),
  );

  it.effect("a stop lets the running handler finish and stores its outcome", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.create(RES, function slowFn() {
          return Effect.gen(function* () {
            calls.push("started");
            yield* Effect.sleep("1 second");
            calls.push("finished");
            return "ok";
          });
        });
        registry.on.cleanup(function cleanupFn() {
          calls.push("cleanup");
        });
        const { operator } = yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(0.3);
        assert.deepStrictEqual(calls, ["started"]);
        const stopping = yield* Effect.forkChild(operator.stop);
        yield* Harness.settle(2);
        yield* Fiber.join(stopping);
        assert.deepStrictEqual(calls, ["started", "finished", "cleanup"]);
        const body = yield* Harness.get("e1");
        assert.deepStrictEqual(body.status, { slowFn: "ok" });
        assert.include(lines, "Stop-flag is raised. Operator is stopping.");
      }),
    ),
  );

  it.effect("a handler running longer than queueing.exitTimeout is cancelled; cleanup still runs", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.create(RES, function hungFn() {
          return Effect.gen(function* () {
            calls.push("started");
            yield* Effect.sleep("1 hour");
            calls.push("finished");
          });
        });
        registry.on.cleanup(function cleanupFn() {
          calls.push("cleanup");
        });
        const { operator } = yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(0.3);
        const stopping = yield* Effect.forkChild(operator.stop);
        yield* Harness.settle(1.5);
        assert.isUndefined(stopping.pollUnsafe());
        yield* Harness.settle(1);
        yield* Fiber.join(stopping);
        assert.deepStrictEqual(calls, ["started", "cleanup"]);
        assert.isTrue(lines.some((l) => l.startsWith("Unprocessed streams left for")));
        assert.deepStrictEqual((yield* Harness.get("e1")).status, undefined);
      }),
    ),
  );

  it.effect("Operator.layer runs the operator for the layer's lifetime", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        yield* Harness.setup;
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.create(RES, function createFn() {
          calls.push("create");
        });
        registry.on.cleanup(function cleanupFn() {
          calls.push("cleanup");
        });
        yield* Effect.scoped(
          Effect.gen(function* () {
            const running = yield* Layer.build(Operator.layer({ registry, namespaces: [ns] }));
            const handle = Context.get(running, Operator.RunningOperator);
            yield* Harness.settle(0.5);
            yield* handle.ready;
            yield* Harness.create("e1");
            yield* Harness.settle(2);
          }),
        );
        assert.deepStrictEqual(calls, ["create", "cleanup"]);
        void log;
        void lines;
      }),
    ),
  );

  it.effect("on.event handlers see every event, including deletion", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const seen: Array<string> = [];
        registry.on.event(RES, function eventFn({ type, name }) {
          seen.push(`${type} ${name}`);
        });
        yield* Harness.setup;
        yield* Harness.create("a");
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("b");
        yield* Harness.settle(1);
        yield* Harness.remove("b");
        yield* Harness.settle(1);
        assert.deepStrictEqual(seen, ["null a", "ADDED b", "DELETED b"]);
        assert.deepStrictEqual(log.patches(), []);
      }),
    ),
  );

  it.effect("API failures while patching are throttled per object, then recovered from", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        let calls = 0;
        registry.on.create(RES, function createFn() {
          calls += 1;
        });
        yield* Harness.start(registry, { lines, log });
        let failures = 0;
        log.failPatch = () => (failures++ < 1 ? 500 : undefined);
        yield* Harness.create("e1");
        yield* Harness.settle(0.5);
        assert.isTrue(
          lines.some((l) => l.startsWith(`[${ns}/e1] Throttling for 1 seconds due to an unexpected error:`)),
        );
        // Other objects are not affected while e1 is throttled.
        yield* Harness.create("e2");
        yield* Harness.settle(0.3);
        assert.include(lines, `[${ns}/e2] Creation is processed: 1 succeeded; 0 failed.`);
        assert.strictEqual(calls, 2);
        yield* Harness.settle(1);
        // Like Kopf, the object is processed again on its next event.
        yield* Harness.patch("e1", { metadata: { labels: { nudge: "1" } } });
        yield* Harness.settle(2);
        assert.include(lines, `[${ns}/e1] Throttling is over. Switching back to normal operations.`);
        assert.strictEqual(calls, 3);
        assert.strictEqual(
          Harness.annotations(yield* Harness.get("e1"))["kopf.zalando.org/last-handled-configuration"],
          '{"spec":{"field":"value"},"metadata":{"labels":{"nudge":"1"}}}\n',
        );
      }),
    ),
  );

  it.effect("a 422 on the finalizer's JSON patch keeps the patch functions for the next cycle", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.delete(RES, function deleteFn() {});
        yield* Harness.start(registry, { lines, log });
        let conflicts = 0;
        log.failPatch = (_, request) =>
          request.contentType?.includes("json-patch") && conflicts++ < 1 ? 422 : undefined;
        yield* Harness.create("e1");
        yield* Harness.settle(1);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, undefined);
        // Any new event of the object brings the retry.
        yield* Harness.patch("e1", { metadata: { labels: { nudge: "1" } } });
        yield* Harness.settle(1);
        assert.deepStrictEqual((yield* Harness.get("e1")).metadata?.finalizers, [FINALIZER]);
        assert.strictEqual(conflicts, 2);
      }),
    ),
  );

  it.effect("a 404 while patching means the object is gone: no error, no throttling", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.create(RES, function createFn() {
          return { done: true };
        });
        yield* Harness.start(registry, { lines, log });
        log.failPatch = () => 404;
        yield* Harness.create("e1");
        yield* Harness.settle(2);
        assert.include(lines, `[${ns}/e1] Patching was skipped: the object does not exist anymore.`);
        assert.isFalse(lines.some((l) => l.includes("Throttling")));
      }),
    ),
  );
});

describe("posting from handlers", () => {
  it.effect("handlers post events through the running operator (plain and Effect handlers)", () =>
    Harness.scenario(({ lines, log }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.create(RES, function createFn({ body }) {
          Posting.ambient()?.info(body, { reason: "Created", message: "plain" });
        });
        registry.on.update(RES, function updateFn({ body }) {
          return Effect.gen(function* () {
            const events = yield* Posting.CurrentEvents;
            events?.warn(body, { reason: "Updated", message: "effect" });
          });
        });
        yield* Harness.start(registry, { lines, log });
        yield* Harness.create("e1");
        yield* Harness.settle(2);
        yield* Harness.patch("e1", { spec: { field: "other" } });
        yield* Harness.settle(2);
        const posted = log.events().map((r) => {
          const b = r.body as { type: string; reason: string; message: string };
          return `${b.type} ${b.reason} ${b.message}`;
        });
        assert.deepStrictEqual(posted, ["Normal Created plain", "Warning Updated effect"]);
      }),
    ),
  );
});

describe("the log-to-events bridge in an operator", () => {
  it.effect("object loggers post their lines when enabled; on.event loggers are local", () =>
    Harness.scenario(
      ({ lines, log, ns }) =>
        Effect.gen(function* () {
          const registry = Registry.make();
          registry.on.event(RES, function eventFn({ logger, type }) {
            if (type === "ADDED") logger.info("local line");
          });
          registry.on.create(RES, function createFn({ logger }) {
            logger.info("posted line");
          });
          yield* Harness.start(registry, { lines, log });
          yield* Harness.create("e1");
          yield* Harness.settle(2);
          assert.include(lines, `[${ns}/e1] local line`);
          const posted = log.events().map((r) => {
            const b = r.body as { type: string; reason: string; message: string };
            return `${b.type} ${b.reason} ${b.message}`;
          });
          assert.includeMembers(posted, [
            "Normal Logging posted line",
            "Normal Logging Handler 'createFn' succeeded.",
          ]);
          assert.isFalse(posted.some((p) => p.includes("local line")));
        }),
      { posting: { loggers: true } },
    ),
  );
});
