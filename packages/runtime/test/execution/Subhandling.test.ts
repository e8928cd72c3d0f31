// Covers sub-handlers (docs/behaviour/processing.md#sub-handlers): declared through ctx.subregistry, through the ambient
// register/subhandler/execute (AsyncLocalStorage for async handlers, the fiber for Effect
// handlers), explicit execute with fns; their own progress keys, results, the parent's subrefs
// at any depth and Kopf's "None" message while children are pending, the parent retried until
// all children are done, purging of everything at the end, and misuse reported.
import { describe, expect, it } from "@effect/vitest";
import { type ChangingHandler, type Lifecycle, Lifecycles, Matching, TemporaryError } from "@kopf/registry";
import { OperatorSettings, Settings } from "@kopf/settings";
import type { RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import * as Execution from "../../src/execution/Execution.ts";
import * as AmbientHandlers from "../../src/execution/node/AmbientHandlers.ts";
import * as Subhandling from "../../src/execution/Subhandling.ts";
import * as F from "./fixtures.ts";

const T0 = Date.UTC(2020, 11, 31, 23, 59, 59);

const cycle = (
  body: RawBody,
  owned: ReadonlyArray<ChangingHandler>,
  lifecycle: Lifecycle = Lifecycles.all_at_once,
) =>
  Effect.gen(function* () {
    const rec = F.recorder();
    const cause = F.changing({ logger: rec.logger, body });
    const handlers = Matching.changingHandlers(owned, cause);
    const result = yield* Execution.runChanging({ cause, handlers, owned, lifecycle });
    return { ...result, patch: cause.patch, rec, next: F.applied(body, cause.patch) };
  });

describe("sub-handlers declared on ctx.subregistry", () => {
  it.effect("keep their own progress; the parent waits for them and lists them", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0);
      const calls: Array<string> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "create_fn" }, ({ subregistry }) => {
          calls.push("parent");
          subregistry.subhandler({ id: "sub1" }, () => {
            calls.push("sub1");
            return "one";
          });
          subregistry.register(
            ({ retry }) => {
              calls.push("sub2");
              if (retry === 0) throw new TemporaryError("later", { delay: 5 });
              return { two: 2 };
            },
            { id: "sub2" },
          );
        }),
      );

      const c1 = yield* cycle(F.body(), owned);
      expect(calls).toEqual(["parent", "sub1", "sub2"]);
      expect(c1.done).toBe(false);
      expect(c1.delays).toEqual([5]);
      expect(F.progressIn(c1.patch, "create_fn")).toEqual({
        started: "2020-12-31T23:59:59.000000+00:00",
        delayed: "2021-01-01T00:00:04.000000+00:00",
        purpose: "create",
        retries: 1,
        success: false,
        failure: false,
        message: "None",
        subrefs: ["create_fn/sub1", "create_fn/sub2"],
      });
      expect(F.progressIn(c1.patch, "create_fn/sub1")).toMatchObject({ success: true, retries: 1 });
      expect(F.progressIn(c1.patch, "create_fn/sub2")).toMatchObject({
        success: false,
        retries: 1,
        message: "later",
      });
      expect(c1.patch.toMergePatch().status).toEqual({ "create_fn/sub1": "one" });
      expect(c1.rec.all()).toContain("Handler 'create_fn' has unfinished sub-handlers. Will retry soon.");

      yield* TestClock.adjust("5 seconds");
      const c2 = yield* cycle(c1.next, owned);
      expect(calls).toEqual(["parent", "sub1", "sub2", "parent", "sub2"]);
      expect(c2.done).toBe(true);
      expect(c2.rec.messages()).toEqual([
        "Handler 'create_fn/sub2' succeeded.",
        "Handler 'create_fn' succeeded.",
        "Creation is processed: 1 succeeded; 0 failed.",
      ]);
      expect(c2.patch.toMergePatch()).toEqual({
        metadata: {
          annotations: {
            "kopf.zalando.org/create_fn": null,
            "kopf.zalando.org/create_fn.sub1": null,
            "kopf.zalando.org/create_fn.sub2": null,
          },
        },
        status: { "create_fn/sub2": { two: 2 } },
      });
    }),
  );

  it.effect("inherit the parent's lifecycle (asap: one child per cycle)", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, ({ subregistry }) => {
          for (const id of ["a", "b"]) subregistry.subhandler({ id }, () => void calls.push(id));
        }),
      );
      let c = yield* cycle(F.body(), owned, Lifecycles.asap);
      expect(calls).toEqual(["a"]);
      expect(c.delays).toEqual([0]);
      while (!c.done) c = yield* cycle(c.next, owned, Lifecycles.asap);
      expect(calls).toEqual(["a", "b"]);
    }),
  );

  it.effect("at any depth are listed in every ancestor's subrefs", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, ({ subregistry }) => {
          subregistry.subhandler({ id: "a" }, ({ subregistry: inner }) => {
            inner.subhandler({ id: "x" }, () => {
              throw new TemporaryError("deep", { delay: 1 });
            });
          });
        }),
      );
      const c = yield* cycle(F.body(), owned);
      expect(F.progressIn(c.patch, "p")).toMatchObject({ subrefs: ["p/a", "p/a/x"] });
      expect(F.progressIn(c.patch, "p/a")).toMatchObject({ subrefs: ["p/a/x"], message: "None" });
      expect(F.progressIn(c.patch, "p/a/x")).toMatchObject({ message: "deep" });
      expect(c.delays).toEqual([1]);
    }),
  );

  it.effect("that fail for good still let the parent finish (as in Kopf)", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, ({ subregistry }) => {
          subregistry.subhandler({ id: "bad", errors: "permanent" }, () => {
            throw new Error("broken");
          });
        }),
      );
      const c = yield* cycle(F.body(), owned);
      expect(c.done).toBe(true);
      expect(c.rec.messages()).toEqual([
        "Handler 'p/bad' failed with an exception and will stop now: broken",
        "Handler 'p' succeeded.",
        "Creation is processed: 1 succeeded; 0 failed.",
      ]);
    }),
  );
});

describe("ambient sub-handling", () => {
  it.effect("register/subhandler reach an async handler across awaits", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, async () => {
          await Promise.resolve();
          AmbientHandlers.register(async () => void calls.push("reg"), { id: "reg" });
          await new Promise<void>((resolve) => queueMicrotask(resolve));
          AmbientHandlers.subhandler({ id: "sub" }, () => void calls.push("sub"));
        }),
      );
      const c = yield* cycle(F.body(), owned).pipe(Effect.provide(AmbientHandlers.layer));
      expect(calls).toEqual(["reg", "sub"]);
      expect(c.done).toBe(true);
    }),
  );

  it.effect("execute runs given functions inside the handler and rejects while they are pending", () =>
    Effect.gen(function* () {
      const seen: Array<string> = [];
      let firstTry = true;
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, async () => {
          seen.push("before");
          await AmbientHandlers.execute({
            fns: {
              one: () => void seen.push("one"),
              two: () => {
                seen.push("two");
                if (firstTry) {
                  firstTry = false;
                  throw new TemporaryError("not yet", { delay: 0 });
                }
              },
            },
          });
          seen.push("after");
        }),
      );
      const c1 = yield* cycle(F.body(), owned).pipe(Effect.provide(AmbientHandlers.layer));
      expect(seen).toEqual(["before", "one", "two"]);
      expect(c1.done).toBe(false);
      expect(F.progressIn(c1.patch, "p")).toMatchObject({ subrefs: ["p/one", "p/two"], message: "None" });
      const c2 = yield* cycle(c1.next, owned).pipe(Effect.provide(AmbientHandlers.layer));
      expect(seen).toEqual(["before", "one", "two", "before", "two", "after"]);
      expect(c2.done).toBe(true);
    }),
  );

  it.effect("an interrupted handler stops the sub-handlers its promise-side execute runs", () =>
    Effect.gen(function* () {
      const events: Array<string> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, async () => {
          await AmbientHandlers.execute({
            fns: {
              slow: () =>
                Effect.sleep("1 hour").pipe(
                  Effect.onInterrupt(() => Effect.sync(() => events.push("sub interrupted"))),
                ),
            },
          });
        }),
      );
      const fiber = yield* Effect.forkChild(
        cycle(F.body(), owned).pipe(Effect.provide(AmbientHandlers.layer)),
      );
      yield* TestClock.adjust("1 minute");
      yield* Fiber.interrupt(fiber);
      yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 10))).pipe(
        TestClock.withLive,
      );
      expect(events).toEqual(["sub interrupted"]);
    }),
  );

  it.effect("execute takes a list of named functions, their ids from their names", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, () =>
          Subhandling.execute({
            fns: [
              function createPods() {
                return "pods";
              },
              function createServices() {
                return "services";
              },
            ],
          }),
        ),
      );
      const c = yield* cycle(F.body(), owned);
      expect(c.done).toBe(true);
      expect(c.patch.toMergePatch().status).toEqual({
        "p/createPods": "pods",
        "p/createServices": "services",
      });
    }),
  );

  it.effect("Effect handlers declare sub-handlers through their fiber", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, () =>
          Effect.gen(function* () {
            yield* Subhandling.register(() => Effect.sync(() => calls.push("via-effect")), { id: "e" });
            AmbientHandlers.register(() => void calls.push("via-fiber"), { id: "f" });
          }),
        ),
      );
      const c = yield* cycle(F.body(), owned);
      expect(calls).toEqual(["via-effect", "via-fiber"]);
      expect(c.done).toBe(true);
    }),
  );

  it.effect("sync handlers find their binding through the fiber even without the layer", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, () => {
          AmbientHandlers.register(() => void calls.push("sub"), { id: "sub" });
        }),
      );
      const c = yield* cycle(F.body(), owned);
      expect([calls, c.done]).toEqual([["sub"], true]);
    }),
  );

  it.effect("the binding carries the body of the object being handled", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p" }, () => {
          seen.push(AmbientHandlers.current()?.body.metadata?.uid);
        }),
      );
      yield* cycle(F.body({ metadata: { uid: "uid-owner" } }), owned);
      expect(seen).toEqual(["uid-owner"]);
    }),
  );

  it.effect("without the layer, async continuations see no binding rather than a wrong one", () =>
    Effect.gen(function* () {
      const seen: Array<string | undefined> = [];
      const owned = F.changingHandlers((r) => {
        for (const id of ["a", "b"]) {
          r.on.create(F.SPEC, { id }, async () => {
            await new Promise<void>((resolve) => setTimeout(resolve, 1));
            seen.push(AmbientHandlers.current()?.handler.id);
          });
        }
      });
      yield* Effect.all([cycle(F.body(), owned), cycle(F.body({ metadata: { uid: "uid-2" } }), owned)], {
        concurrency: "unbounded",
      }).pipe(TestClock.withLive);
      expect(seen.every((id) => id === undefined)).toBe(true);
      expect(seen.length).toBeGreaterThan(0);
    }),
  );

  it("outside a handler is a clear error", () => {
    expect(() => AmbientHandlers.register(() => {}, { id: "x" })).toThrow(
      /only be used inside a resource-changing handler/,
    );
    return expect(AmbientHandlers.execute()).rejects.toMatchObject({
      _tag: "SubhandlingError",
      reason: "OutsideHandler",
    });
  });

  it.effect("a storage failing while sub-handlers are stored fails the parent's attempt", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p", errors: "permanent" }, ({ subregistry }) => {
          subregistry.subhandler({ id: "s" }, () => "x");
        }),
      );
      const storage = Settings.defaults.persistence.progressStorage;
      const broken = {
        ...storage,
        store: (args: Parameters<typeof storage.store>[0]) => {
          if (args.key === "p/s") throw new Error("disk full");
          storage.store(args);
        },
      };
      const settings = {
        ...Settings.defaults,
        persistence: { ...Settings.defaults.persistence, progressStorage: broken },
      };
      const c = yield* cycle(F.body(), owned).pipe(Effect.provideService(OperatorSettings, settings));
      expect(c.done).toBe(true);
      expect(c.rec.messages()).toContain("Handler 'p' failed with an exception and will stop now: disk full");
    }),
  );

  it.effect("conflicting execute arguments fail the parent's attempt", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "p", errors: "permanent" }, () =>
          Subhandling.execute({ fns: [], handlers: [] }),
        ),
      );
      const c = yield* cycle(F.body(), owned);
      expect(c.rec.messages()[0]).toBe(
        "Handler 'p' failed with an exception and will stop now: Only one of the fns, handlers, registry can be passed. Got more.",
      );
    }),
  );
});
