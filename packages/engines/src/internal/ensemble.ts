/**
 * The presences of one peering operator and the pause they add up to (Kopf's peering tasks per
 * peering resource × namespace and the operator's pause toggles): presences start as their
 * targets appear and stop as they go (their own records removed, their verdicts dropped); the
 * operator is paused while any running presence wants it, and `onPause` hears of every change,
 * one at a time.
 */
import type { KubeApi } from "@kopf/client";
import { Effect, Fiber, type Scope, Semaphore } from "effect";
import * as Presence from "../Presence.ts";

/** Runs the presence of one target, reporting its verdicts through `report`. */
export type Start = (
  target: Presence.Target,
  report: (paused: boolean) => Effect.Effect<void>,
) => Effect.Effect<void, never, KubeApi>;

/** The running presences. */
export interface Ensemble {
  /** Starts the presences of new targets and stops those of targets no longer wanted. */
  readonly adjust: (wanted: ReadonlyArray<Presence.Target>) => Effect.Effect<void, never, Scope.Scope>;
}

/**
 * An ensemble whose presences begin with the verdict `initial` (paused for a mandatory peering,
 * until its object shows no conflict), forked into the current scope.
 */
export const make = (
  start: Start,
  onPause: (paused: boolean) => Effect.Effect<void>,
  initial: boolean,
): Effect.Effect<Ensemble, never, KubeApi> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<KubeApi>();
    const lock = yield* Semaphore.make(1);
    const running = new Map<string, Fiber.Fiber<void>>();
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
        for (const [key, fiber] of [...running]) {
          if (targets.has(key)) continue;
          running.delete(key);
          wants.delete(key);
          yield* Fiber.interrupt(fiber);
        }
        for (const [key, target] of targets) {
          if (running.has(key)) continue;
          wants.set(key, initial);
          running.set(
            key,
            yield* Effect.forkScoped(Effect.provideContext(start(target, report(key)), context)),
          );
        }
        yield* settle;
      });

    return { adjust };
  });
