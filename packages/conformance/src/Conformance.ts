/**
 * The differential run: every sequence is replayed on the real API server and on the emulator,
 * each side's outcomes are normalised with its own placeholder tables, and the two are compared
 * interaction by interaction. The result feeds {@link Deviations.check} and the report.
 */
import * as Effect from "effect/Effect";
import * as Compare from "./Compare.ts";
import type { Connection } from "./Connection.ts";
import type { Compared } from "./Deviations.ts";
import type { Outcome, Sequence } from "./Interaction.ts";
import * as Normalise from "./Normalise.ts";
import * as Runner from "./Runner.ts";

/** One interaction's normalised outcomes on both servers and their differences. */
export interface Result extends Compared {
  readonly real: Outcome;
  readonly emulator: Outcome;
}

/** Both servers' outcomes of a sequence, normalised, paired up and compared. */
export const compareSequence = (
  run: string,
  real: ReadonlyArray<Outcome>,
  emulator: ReadonlyArray<Outcome>,
): ReadonlyArray<Result> => {
  const nReal = Normalise.make(run);
  const nEmulator = Normalise.make(run);
  return real.map((rawReal, index) => {
    const rawEmulator = emulator[index];
    const r = Normalise.outcome(nReal, rawReal);
    const e =
      rawEmulator === undefined
        ? { interaction: rawReal.interaction, status: -1, mediaType: "", body: "missing" }
        : Normalise.outcome(nEmulator, rawEmulator);
    return { interaction: r.interaction, real: r, emulator: e, differences: Compare.outcomes(r, e) };
  });
};

/**
 * Replays the sequences (in order, each on the real server first, then on the emulator) and
 * compares them.
 *
 * @example
 * ```ts
 * const results = yield* Conformance.run({ real, emulator, run: "a1b2", sequences: Sequences.all("a1b2") })
 * ```
 */
export const run = (options: {
  readonly real: Connection;
  readonly emulator: Connection;
  readonly run: string;
  readonly sequences: ReadonlyArray<Sequence>;
  /** Caps every poll's timeout (e.g. when both sides are emulators, which never compact on a timer). */
  readonly maxPollMs?: number;
}): Effect.Effect<ReadonlyArray<Result>> =>
  Effect.forEach(options.sequences, (sequence) =>
    Effect.gen(function* () {
      const limits = options.maxPollMs === undefined ? {} : { maxPollMs: options.maxPollMs };
      const real = yield* Runner.run(options.real, sequence, limits);
      const emulator = yield* Runner.run(options.emulator, sequence, limits);
      return compareSequence(options.run, real, emulator);
    }),
  ).pipe(Effect.map((all) => all.flat()));
