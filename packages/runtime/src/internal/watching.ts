/**
 * The operator's watching gate as a running thing: the {@link WatchGate} state in one
 * `SubscriptionRef`, the side the orchestrator drives (`observe` the namespace observer's sets,
 * watch `watchable`) and the side root tasks get (`RootTasks.Watching`: follow the served
 * namespaces in step, set pauses). Every change is one atomic update of the one state, so the
 * watches see a follower's pause no later than the namespaces it was taken for.
 */
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type * as RootTasks from "../RootTasks.ts";
import * as WatchGate from "./watchGate.ts";

/** The gate, as the operator and its orchestrator hold it. */
export interface Control {
  /** What root tasks get (`RootTaskContext.watching`). */
  readonly watching: RootTasks.Watching;
  /** The namespace observer reports its set (followers then follow it before it is watchable). */
  readonly observe: (namespaces: WatchGate.Namespaces) => Effect.Effect<void>;
  /** The namespaces the watches may follow now (none while paused), without repetitions. */
  readonly watchable: Stream.Stream<WatchGate.Namespaces>;
}

/**
 * A gate with no followers, no pauses and no namespaces yet.
 *
 * @example
 * ```ts
 * const control = yield* Watching.make
 * yield* Effect.forkScoped(Stream.runForEach(SubscriptionRef.changes(observer.namespaces), control.observe))
 * yield* WatchMatrix.run(resources, control.watchable, spawn)
 * ```
 */
export const make: Effect.Effect<Control> = Effect.gen(function* () {
  const ref = yield* SubscriptionRef.make(WatchGate.initial);
  let ids = 0;
  const update = (change: (state: WatchGate.State) => WatchGate.State) => SubscriptionRef.update(ref, change);

  const follow = <E, R>(
    admit: (namespaces: WatchGate.Namespaces) => Effect.Effect<void, E, R>,
  ): Effect.Effect<void, E, R> =>
    Effect.suspend(() => {
      const id = ++ids;
      let followed = 0;
      return Effect.acquireUseRelease(
        update((state) => WatchGate.join(state, id)),
        () =>
          Stream.runForEach(SubscriptionRef.changes(ref), (state) => {
            const observed = state.observed;
            if (observed === undefined || observed.seq <= followed) return Effect.void;
            followed = observed.seq;
            return Effect.andThen(
              admit(observed.namespaces),
              update((now) => WatchGate.acknowledge(now, id, observed.seq)),
            );
          }),
        () => update((state) => WatchGate.leave(state, id)),
      );
    });

  const pause = (initial: boolean) =>
    Effect.gen(function* () {
      const id = ++ids;
      yield* Effect.acquireRelease(
        update((state) => WatchGate.pause(state, id, initial)),
        () => update((state) => WatchGate.pause(state, id, false)),
      );
      return { set: (paused: boolean) => update((state) => WatchGate.pause(state, id, paused)) };
    });

  const changes = SubscriptionRef.changes(ref);
  return {
    watching: {
      namespaces: changes.pipe(
        Stream.map((state) => state.admitted),
        Stream.filter((admitted): admitted is WatchGate.Namespaces => admitted !== undefined),
        Stream.changesWith((a, b) => a === b),
      ),
      follow,
      pause,
    },
    observe: (namespaces) => update((state) => WatchGate.observe(state, namespaces)),
    watchable: changes.pipe(
      Stream.map(WatchGate.watchable),
      Stream.changesWith((a, b) => a === b),
    ),
  };
});
