/**
 * The presences of one peering operator and the pause they add up to (Kopf's peering tasks per
 * peering resource × namespace and the operator's pause toggles): presences start as their
 * targets appear and stop as they go (their own records removed, their verdicts dropped); the
 * operator is paused while any running presence wants it, and `onPause` hears of every change,
 * one at a time.
 */
import type { KubeApi } from "@kopf/client";
import * as Effect from "effect/Effect";
import * as FiberMap from "effect/FiberMap";
import type * as Scope from "effect/Scope";
import * as Semaphore from "effect/Semaphore";
import * as Presence from "../Presence.ts";

/** Runs the presence of one target, reporting its verdicts through `report`. */
export type Start = (
  target: Presence.Target,
  report: (paused: boolean) => Effect.Effect<void>,
) => Effect.Effect<void, never, KubeApi>;

/** The running presences. */
export interface Ensemble {
  /** Starts the presences of new targets and stops those of targets no longer wanted. */
  readonly adjust: (wanted: ReadonlyArray<Presence.Target>) => Effect.Effect<void, never, KubeApi>;
}

/**
 * An ensemble whose presences begin with the verdict `initial` (paused for a mandatory peering,
 * until its object shows no conflict); they are all stopped when the scope closes.
 *
 * @example
 * ```ts
 * const ensemble = yield* Ensemble.make(start, onPause, false)
 * yield* ensemble.adjust(Peering.targets(resources, new Set(["ns1", "ns2"])))
 * ```
 */
export const make = (
  start: Start,
  onPause: (paused: boolean) => Effect.Effect<void>,
  initial: boolean,
): Effect.Effect<Ensemble, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberMap.make<string>();
    const lock = yield* Semaphore.make(1);
    // The verdict of every running presence, by target key.
    const wants = new Map<string, boolean>();
    let paused: boolean | undefined;

    const settle = Semaphore.withPermit(lock)(
      Effect.suspend(() => {
        const now = [...wants.values()].some(Boolean);
        if (now === paused) return Effect.void;
        paused = now;
        return onPause(now);
      }),
    );
    // A stopped presence's last words are not heard: its target is gone.
    const report = (key: string) => (want: boolean) =>
      Effect.suspend(() => {
        if (!wants.has(key)) return Effect.void;
        wants.set(key, want);
        return settle;
      });

    const adjust = (wanted: ReadonlyArray<Presence.Target>) =>
      Effect.gen(function* () {
        const targets = new Map(wanted.map((target) => [Presence.keyOf(target), target]));
        for (const key of [...wants.keys()]) {
          if (targets.has(key)) continue;
          wants.delete(key);
          yield* FiberMap.remove(fibers, key);
        }
        for (const [key, target] of targets) {
          if (wants.has(key)) continue;
          wants.set(key, initial);
          yield* FiberMap.run(fibers, key, start(target, report(key)));
        }
        yield* settle;
      });

    return { adjust };
  });
