/**
 * The fence between a scaled-out operator's coordination (leader election, sharding) and the
 * runtime's processing: it implements the runtime's `Engines.Ownership` seam over an assignment
 * the coordination sets. New work on an object starts only while the assignment owns it and
 * the coordination's lease is valid (`valid`); a claimed object may be patched only while the
 * lease is valid; the
 * coordination can wait for the objects it gives up to finish their cycles before it tells
 * the other replicas (the handoff), and every gain is published so the runtime processes the
 * gained objects again from their last seen state.
 */
import type { Engines } from "@kopf/runtime";
import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";

/** Which objects (by memory key) this replica may start work on. */
export type Assignment = (key: string) => boolean;

/** Nothing is owned. */
export const NOTHING: Assignment = () => false;
/** Everything is owned (a leader). */
export const EVERYTHING: Assignment = () => true;

/** The fence: the runtime's seam plus what the coordination steers it with. */
export interface Fence {
  /** The seam to pass to the runtime as `engines.ownership`. */
  readonly ownership: Engines.Ownership;
  /** Replaces the assignment: objects it drops take no new work; objects it adds are replayed. */
  readonly assign: (assignment: Assignment) => Effect.Effect<void>;
  /** Completes once no claimed object satisfies `which` (their cycles have ended). */
  readonly drained: (which: (key: string) => boolean) => Effect.Effect<void>;
  /** The keys of the objects whose cycles run now. */
  readonly busy: () => ReadonlyArray<string>;
}

/**
 * Makes a fence owning nothing at first; `valid` tells whether the coordination's lease still
 * allows writing (checked before every patch).
 *
 * @example
 * ```ts
 * const fence = yield* Ownership.make(Effect.succeed(true))
 * yield* fence.assign(Ownership.EVERYTHING)
 * yield* Operator.run({ registry, clusterwide: true, engines: { ownership: fence.ownership } })
 * ```
 */
export const make = (valid: Effect.Effect<boolean>): Effect.Effect<Fence> =>
  Effect.gen(function* () {
    let assignment: Assignment = NOTHING;
    const claimed = new Map<string, number>();
    // Bumped whenever a cycle ends, so that drains re-check.
    const ended = yield* SubscriptionRef.make(0);
    const gains = yield* PubSub.unbounded<Assignment>();

    const ownership: Engines.Ownership = {
      claim: (key) =>
        Effect.flatMap(valid, (ok) =>
          Effect.sync(() => {
            if (!ok || !assignment(key)) return false;
            claimed.set(key, (claimed.get(key) ?? 0) + 1);
            return true;
          }),
        ),
      holds: (key) => (claimed.has(key) ? valid : Effect.succeed(false)),
      release: (key) =>
        Effect.suspend(() => {
          const count = (claimed.get(key) ?? 1) - 1;
          if (count <= 0) claimed.delete(key);
          else claimed.set(key, count);
          return SubscriptionRef.update(ended, (n) => n + 1);
        }),
      gains: Effect.map(PubSub.subscribe(gains), Stream.fromSubscription),
    };

    const busyWith = (which: (key: string) => boolean) => [...claimed.keys()].some(which);

    return {
      ownership,
      assign: (next) =>
        Effect.suspend(() => {
          const previous = assignment;
          assignment = next;
          return PubSub.publish(gains, (key: string) => next(key) && !previous(key));
        }).pipe(Effect.asVoid),
      drained: (which) =>
        Effect.suspend(() =>
          busyWith(which)
            ? SubscriptionRef.changes(ended).pipe(
                Stream.takeUntil(() => !busyWith(which)),
                Stream.runDrain,
              )
            : Effect.void,
        ),
      busy: () => [...claimed.keys()],
    };
  });
