/**
 * The table of known deviations of the emulator from the real API server, and the two-way
 * check of a conformance run against it: every difference must be covered by an entry (same
 * interaction, path under one of the entry's paths), and every path of every entry must still
 * cover at least one difference. So an unlisted difference fails, and so does a fixed deviation
 * left in the table: the list can neither silently grow nor rot.
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import { type Difference, isUnder } from "./Compare.ts";

/**
 * One known deviation: an interaction (or a pattern where `*` stands for any characters, e.g.
 * `patches/apply-*`), the paths where it differs (see {@link isUnder} for patterns), and why
 * that is accepted.
 */
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

/**
 * Whether an entry's interaction pattern names an interaction (`*` stands for any characters).
 *
 * @example
 * ```ts
 * Deviations.matches("patches/apply-*", "patches/apply-force") // true
 * ```
 */
export const matches = (pattern: string, interaction: string): boolean => globMatcher(pattern)(interaction);

const globMatcher = (pattern: string): ((text: string) => boolean) => {
  if (!pattern.includes("*")) return (text) => text === pattern;
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return (text) => regex.test(text);
};

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
  const patterns = table.map((entry) => ({ entry, matches: globMatcher(entry.interaction) }));
  const unlisted: Array<{ interaction: string; difference: Difference }> = [];
  const used = new Set<string>();
  let matching = 0;
  let deviating = 0;
  for (const { interaction, differences } of compared) {
    const entries = patterns.filter((p) => p.matches(interaction)).map((p) => p.entry);
    const uncovered = differences.filter(
      (difference) => !entries.some((entry) => entry.paths.some((p) => isUnder(difference.path, p))),
    );
    for (const difference of uncovered) unlisted.push({ interaction, difference });
    if (differences.length === 0) matching++;
    else if (uncovered.length === 0) deviating++;
    for (const entry of entries) {
      for (const path of entry.paths) {
        if (differences.some((d) => isUnder(d.path, path))) used.add(`${entry.interaction}\u0000${path}`);
      }
    }
  }
  const unknown = patterns
    .filter((p) => !compared.some((c) => p.matches(c.interaction)))
    .map((p) => p.entry.interaction);
  const stale = table.flatMap((entry) =>
    unknown.includes(entry.interaction)
      ? []
      : entry.paths
          .filter((path) => !used.has(`${entry.interaction}\u0000${path}`))
          .map((path) => ({ interaction: entry.interaction, path })),
  );
  return {
    interactions: compared.length,
    matching,
    deviating,
    unlisted,
    stale,
    unknown,
  };
};

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/**
 * The table as Markdown (one row per entry, in file order), as docs/emulator-deviations.md
 * embeds it between its `deviations:begin`/`deviations:end` markers.
 *
 * @example
 * ```ts
 * Deviations.markdown([{ interaction: "crud/get", paths: ["body.x"], reason: "why" }])
 * // "| interaction | paths | reason |\n| --- | --- | --- |\n| `crud/get` | `body.x` | why |\n"
 * ```
 */
export const markdown = (table: ReadonlyArray<Deviation>): string =>
  [
    "| interaction | paths | reason |",
    "| --- | --- | --- |",
    ...table.map(
      (d) =>
        `| \`${d.interaction}\` | ${d.paths.map((p) => `\`${cell(p)}\``).join("<br>")} | ${cell(d.reason)} |`,
    ),
  ]
    .map((line) => `${line}\n`)
    .join("");
