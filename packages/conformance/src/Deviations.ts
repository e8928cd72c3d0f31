/**
 * The table of known deviations of the emulator from the real API server, and the two-way
 * check of a conformance run against it: every difference must be covered by an entry (same
 * interaction, path under one of the entry's paths), and every path of every entry must still
 * cover at least one difference. So an unlisted difference fails, and so does a fixed deviation
 * left in the table: the list can neither silently grow nor rot.
 */
import { Data, Result } from "effect";
import { type Difference, isUnder } from "./Compare.ts";

/** One known deviation: an interaction, the paths where it differs, and why that is accepted. */
export interface Deviation {
  readonly interaction: string;
  readonly paths: ReadonlyArray<string>;
  readonly reason: string;
}

/** The compared differences of one interaction (empty when it matches). */
export interface Compared {
  readonly interaction: string;
  readonly differences: ReadonlyArray<Difference>;
}

/** The verdict of a run against the table. */
export interface Verdict {
  readonly interactions: number;
  readonly matching: number;
  /** Interactions with differences, all of them listed. */
  readonly deviating: number;
  /** Differences no entry covers. */
  readonly unlisted: ReadonlyArray<{ readonly interaction: string; readonly difference: Difference }>;
  /** Entries (interaction and path) that no longer match any difference. */
  readonly stale: ReadonlyArray<{ readonly interaction: string; readonly path: string }>;
  /** Entries whose interaction was not run at all. */
  readonly unknown: ReadonlyArray<string>;
}

/** Why the deviations file could not be read. */
export class DeviationsError extends Data.TaggedError("DeviationsError")<{
  readonly reason: "NotAList" | "BadEntry" | "Duplicate";
  readonly message: string;
}> {}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Validates the parsed JSON of the deviations file: a list of `{ interaction, paths, reason }`
 * with non-empty strings, at most one entry per interaction.
 *
 * @example
 * ```ts
 * Deviations.decode([{ interaction: "crud/get", paths: ["body.metadata.managedFields"], reason: "…" }])
 * ```
 */
export const decode = (json: unknown): Result.Result<ReadonlyArray<Deviation>, DeviationsError> => {
  if (!Array.isArray(json)) {
    return Result.fail(
      new DeviationsError({ reason: "NotAList", message: "the deviations file must hold a JSON array" }),
    );
  }
  const seen = new Set<string>();
  const out: Array<Deviation> = [];
  for (const [index, entry] of json.entries()) {
    const where = `deviation #${index + 1}`;
    if (
      !isRecord(entry) ||
      typeof entry.interaction !== "string" ||
      entry.interaction === "" ||
      typeof entry.reason !== "string" ||
      entry.reason.trim() === "" ||
      !Array.isArray(entry.paths) ||
      entry.paths.length === 0 ||
      !entry.paths.every((p) => typeof p === "string" && p !== "")
    ) {
      return Result.fail(
        new DeviationsError({
          reason: "BadEntry",
          message: `${where} must be { interaction: string, paths: non-empty string[], reason: non-empty string }`,
        }),
      );
    }
    if (seen.has(entry.interaction)) {
      return Result.fail(
        new DeviationsError({
          reason: "Duplicate",
          message: `${where}: ${entry.interaction} is listed twice`,
        }),
      );
    }
    seen.add(entry.interaction);
    out.push({
      interaction: entry.interaction,
      paths: entry.paths as ReadonlyArray<string>,
      reason: entry.reason,
    });
  }
  return Result.succeed(out);
};

/**
 * Checks a run against the table.
 *
 * @example
 * ```ts
 * const verdict = Deviations.check(table, compared)
 * verdict.unlisted.length === 0 && verdict.stale.length === 0 && verdict.unknown.length === 0 // the run conforms
 * ```
 */
export const check = (table: ReadonlyArray<Deviation>, compared: ReadonlyArray<Compared>): Verdict => {
  const byInteraction = new Map(table.map((d) => [d.interaction, d]));
  const ran = new Set(compared.map((c) => c.interaction));
  const unlisted: Array<{ interaction: string; difference: Difference }> = [];
  const stale: Array<{ interaction: string; path: string }> = [];
  let matching = 0;
  let deviating = 0;
  for (const { interaction, differences } of compared) {
    const entry = byInteraction.get(interaction);
    const uncovered = differences.filter(
      (difference) => entry === undefined || !entry.paths.some((p) => isUnder(difference.path, p)),
    );
    for (const difference of uncovered) unlisted.push({ interaction, difference });
    if (differences.length === 0) matching++;
    else if (uncovered.length === 0) deviating++;
    for (const path of entry?.paths ?? []) {
      if (!differences.some((d) => isUnder(d.path, path))) stale.push({ interaction, path });
    }
  }
  const unknown = table.filter((d) => !ran.has(d.interaction)).map((d) => d.interaction);
  return {
    interactions: compared.length,
    matching,
    deviating,
    unlisted,
    stale,
    unknown,
  };
};
