// Covers one changing cycle end to end against the default (annotations) progress storage, in
// virtual time (docs/behaviour/processing.md#changing-causes, docs/behaviour/processing.md#lifecycles, docs/behaviour/processing.md#errors-and-retries, docs/behaviour/processing.md#sub-handlers, docs/behaviour/handler-context.md#results): results into status, progress records in Kopf's format,
// retries after TemporaryError/backoff across cycles, look-ahead and strict timeouts and retry
// limits, lifecycles across cycles, progress surviving a restart (a succeeded handler never
// re-runs), superseded causes reported and purged, and on.event handlers.
import { describe, expect, it } from "@effect/vitest";
import {
  type ChangingHandler,
  type Lifecycle,
  Lifecycles,
  Matching,
  PermanentError,
  Registry,
  TemporaryError,
} from "@kopf/registry";
import { HandlerState, type State } from "@kopf/storage";
import { Diff, IsoTime, type RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as References from "effect/References";
import { TestClock } from "effect/testing";
import * as Execution from "../../src/execution/Execution.ts";
import * as F from "./fixtures.ts";

const T0 = Date.UTC(2020, 11, 31, 23, 59, 59);

/** One cycle over `body`, as the reactor would run it. */
const cycle = (
  body: RawBody,
  owned: ReadonlyArray<ChangingHandler>,
  options: { reason?: "create" | "update" | "delete" | "resume"; lifecycle?: Lifecycle } = {},
) =>
  Effect.gen(function* () {
    const rec = F.recorder();
    const cause = F.changing({ logger: rec.logger, body, reason: options.reason ?? "create" });
    const handlers = Matching.changingHandlers(owned, cause);
    const result = yield* Execution.runChanging({ cause, handlers, owned, lifecycle: options.lifecycle });
    return { ...result, patch: cause.patch, rec, next: F.applied(body, cause.patch) };
  });

describe("a single cycle", () => {
  it.effect("delivers results and leaves no progress behind when done", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0);
      const owned = F.changingHandlers((r) => {
        r.on.create(F.SPEC, { id: "mapping" }, () => ({ message: "hello" }));
        r.on.create(F.SPEC, { id: "scalar" }, () => "done");
        r.on.create(F.SPEC, { id: "nothing" }, () => undefined);
      });
      const c = yield* cycle(F.body(), owned, { lifecycle: Lifecycles.all_at_once });
      expect(c.done).toBe(true);
      expect(c.delays).toEqual([]);
      expect(c.patch.toMergePatch()).toEqual({ status: { mapping: { message: "hello" }, scalar: "done" } });
      expect(c.rec.messages()).toEqual([
        "Handler 'mapping' succeeded.",
        "Handler 'scalar' succeeded.",
        "Handler 'nothing' succeeded.",
        "Creation is processed: 3 succeeded; 0 failed.",
      ]);
      expect(c.rec.all()).not.toContain(`Creation is in progress: ${JSON.stringify(F.body())}`); // Info level
    }),
  );

  it.effect("keeps a temporary failure's progress in Kopf's record", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0);
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, () => {
          throw new TemporaryError("not yet", { delay: 10 });
        }),
      );
      const c = yield* cycle(F.body(), owned);
      expect(c.done).toBe(false);
      expect(c.delays).toEqual([10]);
      expect(F.progressIn(c.patch, "fn")).toEqual({
        started: "2020-12-31T23:59:59.000000+00:00",
        delayed: "2021-01-01T00:00:09.000000+00:00",
        purpose: "create",
        retries: 1,
        success: false,
        failure: false,
        message: "not yet",
      });
      expect(c.rec.messages()).toEqual(["Handler 'fn' failed temporarily: not yet"]);
      expect(c.patch.toMergePatch()).not.toHaveProperty("status");
    }),
  );

  it.effect("records a permanent failure as final and reports it in the counts", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, () => {
          throw new PermanentError("bad");
        }),
      );
      const c = yield* cycle(F.body(), owned);
      expect(c.done).toBe(true);
      expect(c.rec.messages()).toEqual([
        "Handler 'fn' failed permanently: bad",
        "Creation is processed: 0 succeeded; 1 failed.",
      ]);
      expect(F.progressIn(c.patch, "fn")).toBeUndefined(); // purged when done
    }),
  );

  it.effect("treats IGNORED errors as success", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn", errors: "ignored" }, () => {
          throw new Error("whatever");
        }),
      );
      const c = yield* cycle(F.body(), owned);
      expect(c.done).toBe(true);
      expect(c.rec.messages().at(-1)).toBe("Creation is processed: 1 succeeded; 0 failed.");
    }),
  );

  it.effect("logs the progress and the diff of an update at debug level", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) => r.on.update(F.SPEC, { id: "fn" }, () => {}));
      const old = { spec: { size: 1 } };
      const now = { spec: { size: 2 } };
      const rec = F.recorder();
      const cause = F.changing({
        logger: rec.logger,
        reason: "update",
        old,
        new: now,
        diff: Diff.diff(old, now),
      });
      yield* Execution.runChanging({ cause, handlers: Matching.changingHandlers(owned, cause), owned }).pipe(
        Effect.provideService(References.MinimumLogLevel, "Debug"),
      );
      const debug = rec.lines.filter((l) => l.level === "debug").map((l) => l.message);
      expect(debug).toContain(`Updating is in progress: ${JSON.stringify(cause.body)}`);
      expect(debug).toContain(`Updating diff: ${JSON.stringify(Diff.diff(old, now))}`);
      expect(rec.messages().at(-1)).toBe("Updating is processed: 1 succeeded; 0 failed.");
    }),
  );

  it.effect("does nothing for reasons that run no handlers", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) => r.on.create(F.SPEC, { id: "fn" }, () => {}));
      const rec = F.recorder();
      const cause = F.changing({ logger: rec.logger, reason: "noop" });
      const result = yield* Execution.runChanging({ cause, handlers: owned, owned });
      expect([result.done, result.skipped, rec.lines]).toEqual([false, false, []]);
    }),
  );

  it.effect("skips a cause without handlers (the diff-base is stored as if done)", () =>
    Effect.gen(function* () {
      const c = yield* cycle(F.body(), []);
      expect([c.done, c.skipped, c.delays]).toEqual([false, true, []]);
      expect(c.patch.toMergePatch()).toEqual({});
    }),
  );
});

describe("every handler style fails the same way", () => {
  const failures = {
    temporary: () => new TemporaryError("wait", { delay: 3 }),
    permanent: () => new PermanentError("stop"),
    arbitrary: () => new RangeError("odd"),
  };
  const styles = {
    sync: (error: unknown) => () => {
      throw error;
    },
    async: (error: unknown) => async () => {
      await Promise.resolve();
      throw error;
    },
    effect: (error: unknown) => () => Effect.fail(error),
    "effect defect": (error: unknown) => () => Effect.die(error),
  };
  const expected = {
    temporary: { done: false, delays: [3], log: "Handler 'fn' failed temporarily: wait" },
    permanent: { done: true, delays: [], log: "Handler 'fn' failed permanently: stop" },
    arbitrary: {
      done: false,
      delays: [60],
      log: "Handler 'fn' failed with an exception and will try again in 60 seconds: odd",
    },
  };
  const rows = Object.entries(styles).flatMap(([style, make]) =>
    Object.entries(failures).map(([kind, error]) => [style, kind, make, error] as const),
  );

  it.effect.each(rows)("%s handler, %s error", ([_style, kind, make, error]) =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) => r.on.create(F.SPEC, { id: "fn" }, make(error())));
      const c = yield* cycle(F.body(), owned);
      const want = expected[kind as keyof typeof expected];
      expect([c.done, c.delays]).toEqual([want.done, want.delays]);
      expect(c.rec.messages()[0]).toBe(want.log);
    }),
  );
});

describe("across cycles in virtual time", () => {
  it.effect("retries after the TemporaryError's delay, not before, with retry counted", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0);
      const retries: Array<number> = [];
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, ({ retry }) => {
          retries.push(retry);
          if (retry === 0) throw new TemporaryError("wait", { delay: 10 });
          return { attempt: retry };
        }),
      );
      const c1 = yield* cycle(F.body(), owned);
      yield* TestClock.adjust("4 seconds");
      const c2 = yield* cycle(c1.next, owned);
      expect(retries).toEqual([0]);
      expect(c2.delays).toEqual([6]);
      yield* TestClock.adjust("6 seconds");
      const c3 = yield* cycle(c2.next, owned);
      expect(retries).toEqual([0, 1]);
      expect(c3.done).toBe(true);
      expect(c3.patch.toMergePatch()).toEqual({
        metadata: { annotations: { "kopf.zalando.org/fn": null } },
        status: { fn: { attempt: 1 } },
      });
    }),
  );

  it.effect("TemporaryError(null) makes the handler run again at once", () =>
    Effect.gen(function* () {
      let calls = 0;
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, () => {
          if (++calls < 3) throw new TemporaryError("again", { delay: null });
        }),
      );
      const c1 = yield* cycle(F.body(), owned);
      expect(c1.delays).toEqual([0]);
      const c2 = yield* cycle(c1.next, owned);
      const c3 = yield* cycle(c2.next, owned);
      expect([calls, c3.done]).toEqual([3, true]);
    }),
  );

  it.effect("backs off after arbitrary errors, then stops when the next attempt would time out", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0);
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn", backoff: 20, timeout: 50 }, () => {
          throw new Error("boom");
        }),
      );
      const c1 = yield* cycle(F.body(), owned);
      expect(c1.delays).toEqual([20]);
      yield* TestClock.adjust("20 seconds");
      const c2 = yield* cycle(c1.next, owned);
      expect(c2.delays).toEqual([20]);
      yield* TestClock.adjust("20 seconds");
      const c3 = yield* cycle(c2.next, owned); // runtime 40 + backoff 20 ≥ 50
      expect(c3.done).toBe(true);
      expect(c3.rec.messages()).toEqual([
        "Handler 'fn' failed with an exception and will stop now (it would time out in 50 seconds on the next attempt): boom",
        "Creation is processed: 0 succeeded; 1 failed.",
      ]);
    }),
  );

  it.effect("stops on the retries limit with the look-ahead", () =>
    Effect.gen(function* () {
      let calls = 0;
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn", retries: 2 }, () => {
          calls++;
          throw new TemporaryError("again", { delay: 0 });
        }),
      );
      const c1 = yield* cycle(F.body(), owned);
      const c2 = yield* cycle(c1.next, owned);
      expect([calls, c1.done, c2.done]).toEqual([2, false, true]);
      expect(c2.rec.messages()[0]).toBe("Handler 'fn' failed temporarily but will exceed 2 retries: again");
    }),
  );

  it.effect("fails a handler whose runtime passed its timeout without invoking it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0);
      let calls = 0;
      const owned = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn", timeout: 60 }, () => {
          calls++;
          throw new TemporaryError("wait", { delay: 1 });
        }),
      );
      const c1 = yield* cycle(F.body(), owned);
      yield* TestClock.adjust("100 seconds"); // e.g. the operator was down
      const c2 = yield* cycle(c1.next, owned);
      expect(calls).toBe(1);
      expect(c2.rec.messages()).toEqual([
        "Handler 'fn' has timed out after 0:01:40.",
        "Creation is processed: 0 succeeded; 1 failed.",
      ]);
    }),
  );

  it.effect("asap runs one handler per cycle, the least retried first", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      let failures = 1;
      const owned = F.changingHandlers((r) => {
        r.on.create(F.SPEC, { id: "a" }, () => {
          calls.push("a");
          if (failures-- > 0) throw new TemporaryError("a fails once", { delay: 0 });
        });
        r.on.create(F.SPEC, { id: "b" }, () => void calls.push("b"));
      });
      let c = yield* cycle(F.body(), owned);
      while (!c.done) c = yield* cycle(c.next, owned);
      expect(calls).toEqual(["a", "b", "a"]);
      expect(c.rec.messages().at(-1)).toBe("Creation is processed: 2 succeeded; 0 failed.");
    }),
  );

  it.effect("never re-runs a succeeded handler after a restart mid-way", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const declare = (r: Registry.Registry) => {
        r.on.create(F.SPEC, { id: "first" }, () => void calls.push("first"));
        r.on.create(F.SPEC, { id: "second" }, () => void calls.push("second"));
      };
      const c1 = yield* cycle(F.body(), F.changingHandlers(declare), { lifecycle: Lifecycles.one_by_one });
      expect(F.progressIn(c1.patch, "first")).toMatchObject({ success: true, retries: 1 });
      expect(F.progressIn(c1.patch, "second")).toMatchObject({ retries: 0, purpose: "create" });
      // A new operator: fresh handlers and memories; only the object's annotations carry over.
      const c2 = yield* cycle(c1.next, F.changingHandlers(declare), { lifecycle: Lifecycles.one_by_one });
      expect(calls).toEqual(["first", "second"]);
      expect(c2.done).toBe(true);
      expect(c2.patch.toMergePatch()).toEqual({
        metadata: { annotations: { "kopf.zalando.org/first": null, "kopf.zalando.org/second": null } },
      });
    }),
  );
});

describe("a pre-loaded state", () => {
  it.effect("is used instead of loading the progress again", () =>
    Effect.gen(function* () {
      const calls: Array<string> = [];
      const owned = F.changingHandlers((r) => {
        r.on.create(F.SPEC, { id: "a" }, () => void calls.push("a"));
        r.on.create(F.SPEC, { id: "b" }, () => void calls.push("b"));
      });
      const now = yield* IsoTime.now;
      const loaded: State.State = {
        purpose: null,
        handlers: new Map([
          ["a", { ...HandlerState.fromScratch(now, "create"), active: false, success: true }],
        ]),
      };
      const rec = F.recorder();
      const cause = F.changing({ logger: rec.logger });
      const result = yield* Execution.runChanging({ cause, handlers: owned, owned, state: loaded });
      expect(calls).toEqual(["b"]);
      expect(result.done).toBe(true);
      expect(rec.messages().at(-1)).toBe("Creation is processed: 2 succeeded; 0 failed.");
    }),
  );
});

describe("superseded causes", () => {
  it.effect("reports the unfinished creation and purges it when a deletion comes", () =>
    Effect.gen(function* () {
      const owned = F.changingHandlers((r) => {
        r.on.create(F.SPEC, { id: "create_fn" }, () => {
          throw new TemporaryError("slow", { delay: 60 });
        });
        r.on.delete(F.SPEC, { id: "delete_fn" }, () => "deleted");
      });
      const c1 = yield* cycle(F.body(), owned);
      const deleting = {
        ...c1.next,
        metadata: { ...(c1.next.metadata as object), deletionTimestamp: "2021-01-01T00:00:00Z" },
      };
      const c2 = yield* cycle(deleting, owned, { reason: "delete" });
      expect(c2.rec.messages()).toEqual([
        "Creation is superseded by deletion: 0 succeeded; 0 failed; 1 left to the moment.",
        "Handler 'delete_fn' succeeded.",
        "Deletion is processed: 1 succeeded; 0 failed.",
      ]);
      expect(c2.patch.toMergePatch()).toEqual({
        metadata: { annotations: { "kopf.zalando.org/create_fn": null } },
        status: { delete_fn: "deleted" },
      });
    }),
  );
});

describe("runWatching", () => {
  it.effect("runs all on.event handlers once, ignoring errors, results into the patch", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.event(F.SPEC, { id: "ev1" }, ({ type }) => ({ seen: type }));
      registry.on.event(F.SPEC, { id: "ev2" }, () => {
        throw new Error("ignored");
      });
      const rec = F.recorder();
      const cause = F.watching({ logger: rec.logger });
      const outcomes = yield* Execution.runWatching({ cause, handlers: registry.watching });
      expect([...outcomes.values()].map((o) => o.final)).toEqual([true, true]);
      expect(cause.patch.toMergePatch()).toEqual({ status: { ev1: { seen: "ADDED" } } });
      expect(rec.messages()).toEqual([
        "Handler 'ev1' succeeded.",
        "Handler 'ev2' failed with an exception and will ignore it: ignored",
      ]);
    }),
  );
});
