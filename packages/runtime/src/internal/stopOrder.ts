/**
 * The order in which the operator's two concurrent halves stop: the orchestration (watches and
 * the per-object queues) and the root tasks beside it (peering presence, leases, admission,
 * endpoints). Both run together until both complete or one fails. On a stop (interruption) or a
 * failure, the orchestration is stopped first and awaited, so its queues drain and the handlers
 * running now finish and persist their results; then `between` runs (the engines' exit, e.g.
 * stopping the daemons); only then are the root tasks interrupted.
 *
 * Why: a root task may be what keeps others away from the objects. If a peering record or a Lease
 * were withdrawn while the queues still drained, a lower-priority peer or a standby replica
 * would resume at once, list the objects before this operator's last patches landed, and handle
 * them a second time.
 */
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";

/** The halves, and what runs between them on a stop. */
export interface Halves<E1, E2, E3, R> {
  /** Stopped first (the orchestration). */
  readonly foreground: Effect.Effect<void, E1, R>;
  /** Stopped last (the root tasks). */
  readonly background: Effect.Effect<void, E3, R>;
  /** Runs as the stop begins, if the foreground is still running (e.g. the stop's log line). */
  readonly stopping?: Effect.Effect<void, never, R> | undefined;
  /** Runs once the foreground has stopped, before the background is interrupted. */
  readonly between?: Effect.Effect<void, E2, R> | undefined;
}

/**
 * Runs both halves concurrently; stops them in order (see the module).
 *
 * @example
 * ```ts
 * yield* StopOrder.run({ foreground: orchestration, between: stopDaemons, background: tasks })
 * ```
 */
export const run = <E1, E2, E3, R>(halves: Halves<E1, E2, E3, R>): Effect.Effect<void, E1 | E2 | E3, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const front = yield* Effect.forkChild(restore(halves.foreground));
      const back = yield* Effect.forkChild(restore(halves.background));
      const ended = yield* Effect.exit(
        restore(
          Effect.all([Fiber.join(front), Fiber.join(back)], { concurrency: "unbounded", discard: true }),
        ),
      );
      // Said at once: the foreground's drain may take a while.
      if (front.pollUnsafe() === undefined && halves.stopping !== undefined) yield* halves.stopping;
      yield* Fiber.interrupt(front);
      const between = yield* Effect.exit(halves.between ?? Effect.void);
      yield* Fiber.interrupt(back);
      yield* ended;
      return yield* between;
    }),
  );
