// Covers the processing slots of the per-object queues in virtual time: the limit on cycles in
// flight, waits aside giving the slot back (and taking one back before new cycles; a wait that
// ends at once keeps it), continuing
// cycles served before new ones, no slot lost
// to interruption, admission of workers not started yet (after every waiting cycle, in arrival
// order, with the slot as a ticket; an unused ticket given back), a limit changed while cycles
// run (raised: waiters start at once; lowered: slots taken back as cycles end, none from a cycle
// in flight; and a property over random scripts of cycles, admissions, ends and changes of the
// limit), what waits and when it began to, and no limit at all with `null`.
import { assert, describe, it } from "@effect/vitest";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import * as fc from "fast-check";
import * as CycleSlots from "../../src/internal/cycleSlots.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow;
});

/** Counts the cycles holding a slot (running outside of their waits) at once. */
const counter = () => {
  const state = { now: 0, most: 0, log: [] as Array<string> };
  const enter = (name: string) =>
    Effect.sync(() => {
      state.now += 1;
      state.most = Math.max(state.most, state.now);
      state.log.push(name);
    });
  const leave = Effect.sync(() => {
    state.now -= 1;
  });
  /** Forks a cycle named `name` that holds a slot of `slots` for a second (virtual time). */
  const second = (slots: CycleSlots.Slots, name: string) =>
    Effect.forkChild(
      slots.hold(() => Effect.andThen(enter(name), Effect.andThen(Effect.sleep("1 second"), leave))),
    );
  return { state, enter, leave, second };
};

/** Checks that `slots` has exactly one slot free: two cycles of a second each run one after the other. */
const oneSlotLeft = (slots: CycleSlots.Slots) =>
  Effect.gen(function* () {
    const { state, second } = counter();
    const after = yield* Effect.forEach(["x", "y"], (name) => second(slots, name));
    yield* settle;
    assert.deepStrictEqual(state.log, ["x"]);
    yield* TestClock.adjust("1 second");
    yield* settle;
    yield* TestClock.adjust("1 second");
    yield* Fiber.joinAll(after);
    assert.deepStrictEqual(state.log, ["x", "y"]);
    assert.strictEqual(state.most, 1);
  });

describe("CycleSlots", () => {
  it.effect("holds at most `limit` cycles at once; the others start in arrival order as slots free", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(2);
      const { state, second } = counter();
      const fibers = yield* Effect.forEach(["a", "b", "c", "d", "e"], (name) => second(slots, name));
      yield* settle;
      assert.deepStrictEqual(state.log, ["a", "b"]);
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust("1 second");
        yield* settle;
      }
      yield* Fiber.joinAll(fibers);
      assert.deepStrictEqual(state.log, ["a", "b", "c", "d", "e"]);
      assert.strictEqual(state.most, 2);
    }),
  );

  it.effect("a wait aside gives the slot to another cycle and takes one back before new cycles", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(1);
      const log: Array<string> = [];
      const sleeper = yield* Effect.forkChild(
        slots.hold((holder) =>
          Effect.gen(function* () {
            log.push("sleeper starts");
            yield* holder.aside(Effect.sleep("1 hour"));
            log.push("sleeper resumes");
          }),
        ),
      );
      yield* settle;
      // One slot, held by nobody while the sleeper sleeps: every other cycle goes on meanwhile.
      const quick = yield* Effect.forEach(["q1", "q2", "q3"], (name) =>
        Effect.forkChild(slots.hold(() => Effect.sync(() => log.push(name)))),
      );
      yield* settle;
      assert.deepStrictEqual(log, ["sleeper starts", "q1", "q2", "q3"]);
      yield* Fiber.joinAll(quick);
      // A cycle that takes its slot back waits before the cycles not started yet.
      const blocker = yield* Effect.forkChild(slots.hold(() => Effect.sleep("2 hours")));
      yield* settle;
      const late = yield* Effect.forkChild(slots.hold(() => Effect.sync(() => log.push("late"))));
      yield* settle;
      yield* TestClock.adjust("1 hour");
      yield* settle;
      yield* TestClock.adjust("1 hour");
      yield* settle;
      yield* Fiber.join(sleeper);
      yield* Fiber.join(blocker);
      yield* Fiber.join(late);
      assert.deepStrictEqual(log, ["sleeper starts", "q1", "q2", "q3", "sleeper resumes", "late"]);
    }),
  );

  it.effect("a wait aside that ends without waiting keeps the slot: no other cycle runs in between", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(1);
      const log: Array<string> = [];
      const gate = yield* Deferred.make<void>();
      const first = yield* Effect.forkChild(
        slots.hold((holder) =>
          Effect.gen(function* () {
            log.push("a starts");
            yield* Deferred.await(gate); // holding its slot: the next cycle queues for one
            yield* holder.aside(Effect.sync(() => log.push("a's wait ends at once")));
            log.push("a goes on");
          }),
        ),
      );
      yield* settle;
      const queued = yield* Effect.forkChild(slots.hold(() => Effect.sync(() => log.push("b"))));
      yield* settle;
      assert.strictEqual(slots.waiting(), 1);
      yield* Deferred.succeed(gate, undefined);
      yield* Fiber.join(first);
      yield* Fiber.join(queued);
      assert.deepStrictEqual(log, ["a starts", "a's wait ends at once", "a goes on", "b"]);
      assert.strictEqual(slots.waiting(), 0);
    }),
  );

  it.effect("nested waits aside give the slot back once and take one back once", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(1);
      const log: Array<string> = [];
      const nested = yield* Effect.forkChild(
        slots.hold((holder) =>
          Effect.gen(function* () {
            yield* holder.aside(holder.aside(Effect.sleep("1 hour")));
            log.push("nested resumes");
          }),
        ),
      );
      yield* settle;
      // While it waits, another cycle has the one slot.
      const other = yield* Effect.forkChild(slots.hold(() => Effect.sync(() => log.push("other"))));
      yield* settle;
      yield* Fiber.join(other);
      yield* TestClock.adjust("1 hour");
      yield* settle;
      yield* Fiber.join(nested);
      assert.deepStrictEqual(log, ["other", "nested resumes"]);
      yield* oneSlotLeft(slots);
      assert.strictEqual(slots.waiting(), 0);
    }),
  );

  it.effect("a continuing cycle (an object's next event) is served before objects not started yet", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(1);
      const log: Array<string> = [];
      const run = (name: string, continuing: boolean) =>
        Effect.forkChild(slots.hold(() => Effect.sync(() => log.push(name)), continuing));
      const blocker = yield* Effect.forkChild(slots.hold(() => Effect.sleep("1 second")));
      yield* settle;
      const fibers = [yield* run("new 1", false), yield* run("new 2", false), yield* run("echo", true)];
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* Fiber.join(blocker);
      yield* Fiber.joinAll(fibers);
      assert.deepStrictEqual(log, ["echo", "new 1", "new 2"]);
    }),
  );

  it.effect("loses no slot to a cycle interrupted while waiting, holding, or aside", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(1);
      const holding = yield* Effect.forkChild(slots.hold(() => Effect.never));
      const waiting = yield* Effect.forkChild(slots.hold(() => Effect.never));
      const aside = yield* Effect.forkChild(slots.hold((holder) => holder.aside(Effect.never)));
      yield* settle;
      yield* Fiber.interrupt(waiting);
      yield* Fiber.interrupt(holding);
      yield* settle;
      yield* Fiber.interrupt(aside);
      yield* oneSlotLeft(slots);
    }),
  );

  it.effect("admits new objects when a slot frees, after the waiting cycles, with the slot as a ticket", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(1);
      const log: Array<string> = [];
      const tickets = new Map<string, CycleSlots.Ticket | undefined>();
      const admit = (name: string) =>
        slots.admit((ticket, later) => {
          log.push(`${name} admitted${later ? " later" : ""}`);
          tickets.set(name, ticket);
        });
      admit("a");
      assert.deepStrictEqual(log, ["a admitted"]);
      admit("b");
      admit("c");
      // Only "a" holds a slot, as its ticket: nothing else starts, not even a waiting cycle.
      const waiting = yield* Effect.forkChild(slots.hold(() => Effect.sync(() => log.push("waiting cycle"))));
      yield* settle;
      assert.deepStrictEqual(log, ["a admitted"]);
      // "a"'s first cycle runs in its ticket's slot at once, then gives it to the waiting cycle,
      // whose end admits "b" with a held ticket.
      yield* slots.hold(() => Effect.sync(() => log.push("a runs")), false, tickets.get("a"));
      yield* Fiber.join(waiting);
      assert.deepStrictEqual(log, ["a admitted", "a runs", "waiting cycle", "b admitted later"]);
      assert.isTrue(tickets.get("b")?.held);
      // A ticket whose worker ended before its cycle is given back: "c" is admitted.
      slots.release(tickets.get("b") as CycleSlots.Ticket);
      slots.release(tickets.get("b") as CycleSlots.Ticket);
      assert.deepStrictEqual(log.slice(4), ["c admitted later"]);
      slots.release(tickets.get("c") as CycleSlots.Ticket);
      // One slot, not two: one cycle at a time still.
      const { state, second } = counter();
      const after = yield* Effect.forEach(["x", "y"], (name) => second(slots, name));
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* settle;
      yield* TestClock.adjust("1 second");
      yield* Fiber.joinAll(after);
      assert.strictEqual(state.most, 1);
    }),
  );

  it.effect("with no limit, every cycle runs at once", () =>
    Effect.gen(function* () {
      const slots = CycleSlots.make(null);
      const { state, second } = counter();
      const fibers = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => `c${i}`),
        (name) => second(slots, name),
      );
      yield* settle;
      assert.strictEqual(state.most, 200);
      yield* TestClock.adjust("1 second");
      yield* Fiber.joinAll(fibers);
    }),
  );

  it.effect(
    "a raised limit starts waiting cycles at once; a lowered one takes slots back as cycles end",
    () =>
      Effect.gen(function* () {
        const slots = CycleSlots.make(2);
        const { state, enter, leave } = counter();
        // Each cycle runs until its latch is opened (virtual time does not move here).
        const latches = new Map<string, () => void>();
        const cycle = (name: string) =>
          slots.hold(() =>
            Effect.andThen(
              enter(name),
              Effect.andThen(
                Effect.callback<void>((resume) => {
                  latches.set(name, () => resume(Effect.void));
                }),
                leave,
              ),
            ),
          );
        const end = (name: string) =>
          Effect.andThen(
            Effect.sync(() => latches.get(name)?.()),
            settle,
          );
        const names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        const fibers = yield* Effect.forEach(names, (name) => Effect.forkChild(cycle(name)));
        yield* settle;
        assert.deepStrictEqual(state.log, ["a", "b"]);
        assert.strictEqual(slots.waiting(), 6);
        slots.resize(4);
        yield* settle;
        assert.deepStrictEqual(state.log, ["a", "b", "c", "d"]);
        assert.strictEqual(state.now, 4);
        assert.strictEqual(slots.limit(), 4);
        // Lowered to 1 with 4 in flight: none is stopped; the next 3 slots given back go away.
        slots.resize(1);
        yield* settle;
        assert.strictEqual(state.now, 4);
        yield* end("a");
        yield* end("b");
        yield* end("c");
        assert.deepStrictEqual(state.log, ["a", "b", "c", "d"]);
        assert.strictEqual(state.now, 1);
        // The fourth is the one slot left: it goes to the next waiter.
        yield* end("d");
        assert.deepStrictEqual(state.log, ["a", "b", "c", "d", "e"]);
        // Raised while one runs: two more start, three in flight.
        slots.resize(3);
        yield* settle;
        assert.deepStrictEqual(state.log, ["a", "b", "c", "d", "e", "f", "g"]);
        assert.strictEqual(state.now, 3);
        for (const name of ["e", "f", "g", "h"]) yield* end(name);
        yield* Fiber.joinAll(fibers);
        assert.strictEqual(state.now, 0);
        assert.strictEqual(slots.waiting(), 0);
        // All slots came back: three cycles at once again, not more.
        const { state: again, second: second2 } = counter();
        const more = yield* Effect.forEach(["x", "y", "z", "w"], (name) => second2(slots, name));
        yield* settle;
        assert.strictEqual(again.now, 3);
        yield* TestClock.adjust("2 seconds");
        yield* Fiber.joinAll(more);
        assert.strictEqual(again.most, 3);
      }),
  );

  it.effect(
    "a raised limit admits workers not started yet; `whenWaiting` calls back once something waits",
    () =>
      Effect.gen(function* () {
        const slots = CycleSlots.make(1);
        const calls: Array<number> = [];
        slots.whenWaiting(() => calls.push(slots.waiting()));
        const admitted: Array<string> = [];
        slots.admit(() => admitted.push("a"));
        assert.deepStrictEqual(calls, []);
        slots.admit((ticket, later) => admitted.push(`b ${ticket?.held} ${later}`));
        slots.admit((ticket, later) => admitted.push(`c ${ticket?.held} ${later}`));
        // Called once, when "b" began to wait; not again for "c".
        assert.deepStrictEqual(calls, [1]);
        assert.strictEqual(slots.waiting(), 2);
        slots.resize(3);
        assert.deepStrictEqual(admitted, ["a", "b true true", "c true true"]);
        assert.strictEqual(slots.waiting(), 0);
        // Registered while something waits: called at once.
        slots.resize(1);
        slots.admit(() => admitted.push("d"));
        slots.whenWaiting(() => calls.push(slots.waiting()));
        assert.deepStrictEqual(calls, [1, 1]);
        // A limit that is not a number is ignored: still one slot, taken.
        slots.resize(Number.NaN);
        slots.resize(Number.POSITIVE_INFINITY);
        assert.strictEqual(slots.limit(), 1);
        slots.admit(() => admitted.push("e"));
        assert.strictEqual(slots.waiting(), 2);
        // Without a limit nothing ever waits, and resizing does nothing.
        const none = CycleSlots.make(null);
        none.resize(1);
        assert.strictEqual(none.limit(), null);
        none.whenWaiting(() => calls.push(-1));
        none.admit(() => admitted.push("x"));
        none.admit(() => admitted.push("y"));
        assert.deepStrictEqual(admitted.slice(-2), ["x", "y"]);
        assert.deepStrictEqual(calls, [1, 1]);
      }),
  );

  it.effect(
    "property: with the limit changed at any time, no cycle starts above it, none waits below it, no slot is lost",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 5 }),
            fc.array(
              fc.oneof(
                fc.constant({ op: "cycle" as const }),
                fc.constant({ op: "admit" as const }),
                fc.nat(20).map((which) => ({ op: "end" as const, which })),
                fc.integer({ min: 1, max: 6 }).map((limit) => ({ op: "resize" as const, limit })),
              ),
              { maxLength: 60 },
            ),
            (initial, script) =>
              Effect.runPromise(
                Effect.gen(function* () {
                  const slots = CycleSlots.make(initial);
                  let limit = initial;
                  // What holds a slot now, each with how to end it.
                  const holding: Array<() => void> = [];
                  const violations: Array<string> = [];
                  const started = () => {
                    // A slot is handed over only while fewer than the limit hold one.
                    if (holding.length >= limit)
                      violations.push(`started with ${holding.length} of ${limit} held`);
                  };
                  const fibers: Array<Fiber.Fiber<void>> = [];
                  for (const step of script) {
                    if (step.op === "cycle") {
                      fibers.push(
                        yield* Effect.forkChild(
                          slots.hold(() =>
                            Effect.callback<void>((resume) => {
                              started();
                              holding.push(() => resume(Effect.void));
                            }),
                          ),
                        ),
                      );
                    } else if (step.op === "admit") {
                      slots.admit((ticket) => {
                        started();
                        holding.push(() => {
                          if (ticket !== undefined) slots.release(ticket);
                        });
                      });
                    } else if (step.op === "end") {
                      if (holding.length > 0) holding.splice(step.which % holding.length, 1)[0]?.();
                    } else {
                      limit = step.limit;
                      slots.resize(step.limit);
                    }
                    yield* settle;
                    // Nothing waits while a slot is free.
                    if (slots.waiting() > 0 && holding.length < limit)
                      violations.push(`${slots.waiting()} waiting with ${holding.length} of ${limit} held`);
                  }
                  // Everything ends: every waiter gets its turn, and all the slots come back.
                  for (let i = 0; i < 200 && (holding.length > 0 || slots.waiting() > 0); i++) {
                    holding.shift()?.();
                    yield* settle;
                  }
                  yield* Fiber.joinAll(fibers);
                  assert.deepStrictEqual(violations, []);
                  assert.strictEqual(slots.waiting(), 0);
                  const admitted: Array<number> = [];
                  for (let i = 0; i <= limit; i++) slots.admit(() => admitted.push(i));
                  assert.strictEqual(admitted.length, limit);
                  assert.strictEqual(slots.waiting(), 1);
                }),
              ),
          ),
          { numRuns: 200 },
        ),
      ),
  );
});
