// Covers executing handlers once (docs/behaviour/processing.md#lifecycles, docs/behaviour/processing.md#errors-and-retries): the context object each kind of handler
// gets (Kopf's kwargs in camelCase, indices overriding same-named fields, field-adjusted
// old/new/diff), the attempt's counters from the state, the strict limits checked before
// invoking, Kopf's log lines, cancellation escalated, and the lifecycle offered only awakened
// handlers.
import { assert, describe, expect, it } from "@effect/vitest";
import { type ChangingHandler, type Lifecycle, Lifecycles } from "@kopf/registry";
import { Settings } from "@kopf/settings";
import { HandlerState, State } from "@kopf/storage";
import { Diff, IsoTime } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import * as fc from "fast-check";
import { executeHandlerOnce, executeHandlersOnce, selectHandlers } from "../../src/execution/Handling.ts";
import * as Subhandling from "../../src/execution/Subhandling.ts";
import * as F from "./fixtures.ts";

const settings = Settings.defaults;
const S = 1_000_000;

const attempt = (
  handler: ChangingHandler,
  cause: ReturnType<typeof F.changing>,
  state?: HandlerState.HandlerState,
) =>
  Effect.gen(function* () {
    const now = yield* IsoTime.now;
    return yield* executeHandlerOnce({
      handler,
      cause,
      state: state ?? HandlerState.fromScratch(now, "create"),
      settings,
      lifecycle: Lifecycles.asap,
      extraContext: Subhandling.context(),
    });
  });

describe("the context of a changing handler", () => {
  it.effect("has Kopf's kwargs, the invocation fields and the handler's param", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_700_000_000_000);
      const seen: Array<Record<string, unknown>> = [];
      const [handler] = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn", param: { p: 1 } }, (ctx) => void seen.push({ ...ctx })),
      );
      const rec = F.recorder();
      const cause = F.changing({ logger: rec.logger, memo: { shared: true } });
      const now = yield* IsoTime.now;
      const state = { ...HandlerState.fromScratch(now - 30 * S, "create"), retries: 2 };
      yield* attempt(handler!, cause, state);
      const ctx = seen[0]!;
      expect(Object.keys(ctx).sort()).toEqual(
        [
          "annotations",
          "body",
          "diff",
          "labels",
          "logger",
          "memo",
          "meta",
          "name",
          "namespace",
          "new",
          "old",
          "param",
          "patch",
          "reason",
          "resource",
          "retry",
          "runtime",
          "spec",
          "started",
          "status",
          "subregistry",
          "uid",
        ].sort(),
      );
      expect(ctx.param).toEqual({ p: 1 });
      expect(ctx.retry).toBe(2);
      expect(ctx.runtime).toBe(30_000);
      expect((ctx.started as Date).toISOString()).toBe("2023-11-14T22:12:50.000Z");
      expect(ctx.memo).toBe(cause.memo);
      expect(ctx.patch).toBe(cause.patch);
      expect(ctx.logger).toBe(rec.logger);
      expect(ctx.name).toBe("kopf-example-1");
      expect(ctx.reason).toBe("create");
    }),
  );

  it.effect("indices override same-named fields", () =>
    Effect.gen(function* () {
      const seen: Array<Record<string, unknown>> = [];
      const [handler] = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, (ctx) => void seen.push({ ...ctx })),
      );
      const cause = F.changing({
        logger: F.recorder().logger,
        indices: { name: "index-of-names", retry: "idx" },
      });
      yield* attempt(handler!, cause);
      expect(seen[0]?.name).toBe("index-of-names");
      expect(seen[0]?.retry).toBe("idx");
    }),
  );

  it.effect("field handlers see the field's old/new and the reduced diff", () =>
    Effect.gen(function* () {
      const seen: Array<Record<string, unknown>> = [];
      const [handler] = F.changingHandlers((r) =>
        r.on.field(F.SPEC, { id: "fn", field: "spec.size" }, (ctx) => void seen.push({ ...ctx })),
      );
      const old = { spec: { size: 1, other: "a" } };
      const now = { spec: { size: 2, other: "a" } };
      const cause = F.changing({
        logger: F.recorder().logger,
        reason: "update",
        old,
        new: now,
        diff: Diff.diff(old, now),
      });
      yield* attempt(handler!, cause);
      expect([seen[0]?.old, seen[0]?.new]).toEqual([1, 2]);
      expect(seen[0]?.diff).toEqual(Diff.diff(1, 2));
    }),
  );
});

describe("an attempt", () => {
  it.effect("logs Kopf's lines around a success", () =>
    Effect.gen(function* () {
      const [handler] = F.changingHandlers((r) => r.on.create(F.SPEC, { id: "fn" }, () => ({ done: true })));
      const rec = F.recorder();
      const outcome = yield* attempt(handler!, F.changing({ logger: rec.logger }));
      expect(outcome).toMatchObject({ final: true, result: { done: true } });
      expect(rec.all()).toEqual(["Handler 'fn' is invoked.", "Handler 'fn' succeeded."]);
    }),
  );

  it.effect("over its limits is not invoked", () =>
    Effect.gen(function* () {
      let calls = 0;
      const [handler] = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn", timeout: 60 }, () => void calls++),
      );
      const rec = F.recorder();
      const now = yield* IsoTime.now;
      const outcome = yield* attempt(
        handler!,
        F.changing({ logger: rec.logger }),
        HandlerState.fromScratch(now - 61 * S),
      );
      expect(calls).toBe(0);
      expect(outcome.final).toBe(true);
      expect(outcome.error?.message).toBe("Handler 'fn' has timed out after 0:01:01.");
      expect(rec.messages()).toEqual(["Handler 'fn' has timed out after 0:01:01."]);
    }),
  );

  it.effect("uses the settings' default backoff for arbitrary errors", () =>
    Effect.gen(function* () {
      const [handler] = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, () => {
          throw new Error("boom");
        }),
      );
      const rec = F.recorder();
      const now = yield* IsoTime.now;
      const outcome = yield* executeHandlerOnce({
        handler: handler!,
        cause: F.changing({ logger: rec.logger }),
        state: HandlerState.fromScratch(now),
        settings: { ...settings, execution: { ...settings.execution, defaultBackoff: 7 } },
        lifecycle: Lifecycles.asap,
      });
      expect(outcome).toMatchObject({ final: false, delay: 7 });
      expect(rec.lines.at(-1)).toMatchObject({
        level: "exception",
        message: "Handler 'fn' failed with an exception and will try again in 7 seconds: boom",
      });
    }),
  );

  it.effect("cancelled is logged and escalated", () =>
    Effect.gen(function* () {
      const [handler] = F.changingHandlers((r) => r.on.create(F.SPEC, { id: "fn" }, () => Effect.never));
      const rec = F.recorder();
      const fiber = yield* Effect.forkChild(attempt(handler!, F.changing({ logger: rec.logger })));
      yield* TestClock.adjust("1 second");
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)));
      assert.isTrue(Exit.isFailure(exit));
      expect(rec.lines.at(-1)).toEqual({
        level: "warning",
        message: "Handler 'fn' is cancelled. Will escalate.",
      });
    }),
  );
});

describe("cancellation of async handlers", () => {
  it.effect("does not wait for a promise that never settles", () =>
    Effect.gen(function* () {
      const [handler] = F.changingHandlers((r) =>
        r.on.create(F.SPEC, { id: "fn" }, () => new Promise(() => {})),
      );
      const rec = F.recorder();
      const fiber = yield* Effect.forkChild(attempt(handler!, F.changing({ logger: rec.logger })));
      yield* TestClock.adjust("1 second");
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)));
      assert.isTrue(Exit.isFailure(exit));
      expect(rec.lines.at(-1)?.message).toBe("Handler 'fn' is cancelled. Will escalate.");
    }),
  );
});

describe("executeHandlersOnce", () => {
  const three = () => {
    const calls: Array<string> = [];
    const handlers = F.changingHandlers((r) => {
      for (const id of ["h1", "h2", "h3"]) r.on.create(F.SPEC, { id }, () => void calls.push(id));
    });
    return { calls, handlers };
  };

  it.effect("offers the lifecycle only awakened handlers (not finished, not sleeping)", () =>
    Effect.gen(function* () {
      const { calls, handlers } = three();
      const now = yield* IsoTime.now;
      const base = State.withHandlers(State.withPurpose(State.empty(), "create"), handlers, now);
      const h = (id: string) => base.handlers.get(id)!;
      const state: State.State = {
        purpose: "create",
        handlers: new Map([
          ["h1", { ...h("h1"), success: true }],
          ["h2", { ...h("h2"), delayed: now + 10 * S }],
          ["h3", h("h3")],
        ]),
      };
      const outcomes = yield* executeHandlersOnce({
        lifecycle: Lifecycles.all_at_once,
        settings,
        handlers,
        cause: F.changing({ logger: F.recorder().logger }),
        state,
      });
      expect(calls).toEqual(["h3"]);
      expect([...outcomes.keys()]).toEqual(["h3"]);
    }),
  );

  it.effect.each([
    ["all_at_once", Lifecycles.all_at_once, ["h1", "h2", "h3"]],
    ["one_by_one", Lifecycles.one_by_one, ["h1"]],
    ["asap: the fewest retries", Lifecycles.asap, ["h2"]],
  ] as const)("runs the plan of %s sequentially", ([_name, lifecycle, expected]) =>
    Effect.gen(function* () {
      const { calls, handlers } = three();
      const now = yield* IsoTime.now;
      const fresh = State.withHandlers(State.withPurpose(State.empty(), "create"), handlers, now);
      const retries: Record<string, number> = { h1: 2, h2: 0, h3: 1 };
      const state: State.State = {
        purpose: "create",
        handlers: new Map([...fresh.handlers].map(([id, s]) => [id, { ...s, retries: retries[id]! }])),
      };
      yield* executeHandlersOnce({
        lifecycle,
        settings,
        handlers,
        cause: F.changing({ logger: F.recorder().logger }),
        state,
      });
      expect(calls).toEqual(expected);
    }),
  );
});

describe("selectHandlers", () => {
  const ids = ["a", "b", "c", "d"] as const;
  const NOW = 1000 * S;
  const drawnState = fc.record({
    known: fc.boolean(),
    success: fc.boolean(),
    failure: fc.boolean(),
    delayed: fc.option(
      fc.integer({ min: 0, max: 2000 }).map((s) => s * S),
      { nil: null },
    ),
    retries: fc.nat({ max: 5 }),
  });
  // The built-in lifecycles, and hostile ones returning handlers they were not offered, twice.
  const lifecycles: ReadonlyArray<Lifecycle> = [
    Lifecycles.all_at_once,
    Lifecycles.one_by_one,
    Lifecycles.randomized,
    Lifecycles.shuffled,
    Lifecycles.asap,
    <H extends { readonly id: string }>(handlers: ReadonlyArray<H>) => [...handlers, ...handlers],
  ];
  const everyone = ids.map((id) => ({ id }));
  const greedy: Lifecycle = <H extends { readonly id: string }>() => everyone as unknown as ReadonlyArray<H>;

  it("property: never selects a handler whose progress says done (or that sleeps, or is unknown), nor twice", () => {
    fc.assert(
      fc.property(
        fc.tuple(...ids.map(() => drawnState)),
        fc.constantFrom(...lifecycles, greedy),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (states, lifecycle, random) => {
          const handlers = new Map<string, HandlerState.HandlerState>();
          states.forEach((drawn, i) => {
            if (!drawn.known) return;
            handlers.set(ids[i] as string, {
              ...HandlerState.fromScratch(0 as IsoTime.Micros),
              success: drawn.success,
              failure: drawn.failure,
              delayed: drawn.delayed as IsoTime.Micros | null,
              retries: drawn.retries,
            });
          });
          const state: State.State = { purpose: null, handlers };
          const chosen = selectHandlers({
            handlers: everyone,
            state,
            now: NOW as IsoTime.Micros,
            lifecycle,
            random: () => random,
          });
          expect(new Set(chosen.map((h) => h.id)).size).toBe(chosen.length);
          for (const h of chosen) {
            const own = handlers.get(h.id);
            expect(own).toBeDefined();
            expect(HandlerState.isFinished(own as HandlerState.HandlerState)).toBe(false);
            expect(HandlerState.isSleeping(own as HandlerState.HandlerState, NOW as IsoTime.Micros)).toBe(
              false,
            );
          }
        },
      ),
    );
  });
});
