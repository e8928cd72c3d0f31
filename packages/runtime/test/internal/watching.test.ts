// Covers the running gate of the served namespaces (what the orchestrator watches and root tasks
// follow): without followers an observed set is watchable at once; a pause hides everything until
// cleared or its scope ends; a follower gets the current set at once and every later one, and the
// watches wait for its `admit`; a pause set within `admit` is in force before the new set is
// watchable (the watchable sets never show the new namespace unpaused first); a follower that
// stops is no longer waited for; `namespaces` shows each admitted set once.
import { assert, describe, it } from "@effect/vitest";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import * as Watching from "../../src/internal/watching.ts";

type Names = ReadonlyArray<string>;
const names = (namespaces: ReadonlySet<string | null>): Names => [...namespaces].map(String).sort();

const settle = Effect.gen(function* () {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow;
});

/** Records every value of a stream (as sorted names) from now on. */
const record = (stream: Stream.Stream<ReadonlySet<string | null>>) =>
  Effect.gen(function* () {
    const seen: Array<Names> = [];
    yield* Effect.forkScoped(Stream.runForEach(stream, (set) => Effect.sync(() => seen.push(names(set)))));
    yield* settle;
    return seen;
  });

describe("Watching", () => {
  it.effect("without followers an observed set is watchable at once; pauses hide everything while set", () =>
    Effect.gen(function* () {
      const control = yield* Watching.make;
      const seen = yield* record(control.watchable);
      yield* control.observe(new Set(["a"]));
      yield* settle;
      const scope = yield* Scope.make();
      const pause = yield* control.watching.pause(true).pipe(Scope.provide(scope));
      yield* settle;
      yield* pause.set(false);
      yield* settle;
      yield* pause.set(true);
      yield* settle;
      yield* Scope.close(scope, undefined as never);
      yield* settle;
      assert.deepStrictEqual(seen, [[], ["a"], [], ["a"], [], ["a"]]);
    }),
  );

  it.effect(
    "a follower gets the current set at once and every later one; the watches wait for its admit",
    () =>
      Effect.gen(function* () {
        const control = yield* Watching.make;
        yield* control.observe(new Set(["a"]));
        const seen = yield* record(control.watchable);
        const admitted: Array<Names> = [];
        const gates: Array<Deferred.Deferred<void>> = [];
        yield* Effect.forkScoped(
          control.watching.follow((set) =>
            Effect.gen(function* () {
              admitted.push(names(set));
              const gate = yield* Deferred.make<void>();
              gates.push(gate);
              yield* Deferred.await(gate);
            }),
          ),
        );
        yield* settle;
        assert.deepStrictEqual(admitted, [["a"]]);
        yield* control.observe(new Set(["a", "b"]));
        yield* settle;
        // The follower has not finished with the first set, so it has not seen the second yet.
        assert.deepStrictEqual(admitted, [["a"]]);
        assert.deepStrictEqual(seen, [["a"]]);
        yield* Deferred.succeed(gates[0]!, undefined);
        yield* settle;
        assert.deepStrictEqual(admitted, [["a"], ["a", "b"]]);
        assert.deepStrictEqual(seen, [["a"]]);
        yield* Deferred.succeed(gates[1]!, undefined);
        yield* settle;
        assert.deepStrictEqual(seen, [["a"], ["a", "b"]]);
      }),
  );

  it.effect("a pause set within admit is in force before the new set is watchable", () =>
    Effect.gen(function* () {
      const control = yield* Watching.make;
      const seen = yield* record(control.watchable);
      const pause = yield* control.watching.pause(false);
      // A mandatory peering: every namespace it has not seen yet pauses the watching.
      const known = new Set<string | null>();
      yield* Effect.forkScoped(
        control.watching.follow((set) =>
          Effect.gen(function* () {
            if ([...set].some((ns) => !known.has(ns))) yield* pause.set(true);
            for (const ns of set) known.add(ns);
          }),
        ),
      );
      yield* settle;
      yield* control.observe(new Set(["a"]));
      yield* settle;
      yield* pause.set(false);
      yield* settle;
      yield* control.observe(new Set(["a", "b"]));
      yield* settle;
      assert.deepStrictEqual(seen, [[], ["a"], []]);
      yield* pause.set(false);
      yield* settle;
      assert.deepStrictEqual(seen, [[], ["a"], [], ["a", "b"]]);
    }),
  );

  it.effect("a follower that stops is no longer waited for", () =>
    Effect.gen(function* () {
      const control = yield* Watching.make;
      const seen = yield* record(control.watchable);
      const stuck = yield* Effect.forkScoped(control.watching.follow(() => Effect.never));
      yield* settle;
      yield* control.observe(new Set(["a"]));
      yield* settle;
      assert.deepStrictEqual(seen, [[]]);
      yield* Fiber.interrupt(stuck);
      yield* settle;
      assert.deepStrictEqual(seen, [[], ["a"]]);
    }),
  );

  it.effect("a failing admit ends the follower with its failure, and is no longer waited for", () =>
    Effect.gen(function* () {
      const control = yield* Watching.make;
      const seen = yield* record(control.watchable);
      const failing = yield* Effect.forkScoped(control.watching.follow(() => Effect.fail("no")));
      yield* control.observe(new Set(["a"]));
      const exit = yield* Fiber.await(failing);
      yield* settle;
      assert.strictEqual(exit._tag, "Failure");
      assert.deepStrictEqual(seen, [[], ["a"]]);
    }),
  );

  it.effect("namespaces shows each admitted set once, paused or not", () =>
    Effect.gen(function* () {
      const control = yield* Watching.make;
      const served = yield* record(control.watching.namespaces);
      yield* control.observe(new Set([null]));
      const pause = yield* control.watching.pause(true);
      yield* control.observe(new Set(["a", "b"]));
      yield* pause.set(false);
      yield* settle;
      assert.deepStrictEqual(served, [["null"], ["a", "b"]]);
    }),
  );
});
