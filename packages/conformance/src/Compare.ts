/**
 * Structural comparison of two normalised outcomes of the same interaction: the list of paths
 * where the real API server and the emulator disagree, each with both values. Paths read like
 * `status`, `mediaType`, `body.metadata.labels.app`, `body.items[2].data`; a key present on one
 * side only is a difference at that key (the missing side is `undefined`), and arrays of
 * different lengths differ at `…length` plus at every index both have but disagree on.
 */
import type { Outcome } from "./Interaction.ts";

/** One disagreement. */
export interface Difference {
  readonly path: string;
  readonly real: unknown;
  readonly emulator: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const keyPath = (base: string, key: string): string =>
  /^[A-Za-z_$][\w$-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;

const walk = (path: string, real: unknown, emulator: unknown, out: Array<Difference>): void => {
  if (Array.isArray(real) && Array.isArray(emulator)) {
    if (real.length !== emulator.length)
      out.push({ path: `${path}.length`, real: real.length, emulator: emulator.length });
    const shared = Math.min(real.length, emulator.length);
    for (let i = 0; i < shared; i++) walk(`${path}[${i}]`, real[i], emulator[i], out);
    return;
  }
  if (isRecord(real) && isRecord(emulator)) {
    const keys = [...new Set([...Object.keys(real), ...Object.keys(emulator)])].sort();
    for (const key of keys) walk(keyPath(path, key), real[key], emulator[key], out);
    return;
  }
  if (!Object.is(real, emulator)) out.push({ path, real, emulator });
};

/**
 * The differences between two values, in a stable order.
 *
 * @example
 * ```ts
 * Compare.values("body", { a: 1, b: [1, 2] }, { a: 1, b: [1] })
 * // [{ path: "body.b.length", real: 2, emulator: 1 }]
 * ```
 */
export const values = (path: string, real: unknown, emulator: unknown): ReadonlyArray<Difference> => {
  const out: Array<Difference> = [];
  walk(path, real, emulator, out);
  return out;
};

/**
 * The differences between two outcomes of one interaction (status, media type, warnings and body).
 *
 * @example
 * ```ts
 * Compare.outcomes(realOutcome, emulatorOutcome) // [] when they agree
 * ```
 */
export const outcomes = (real: Outcome, emulator: Outcome): ReadonlyArray<Difference> => [
  ...values("status", real.status, emulator.status),
  ...values("mediaType", real.mediaType, emulator.mediaType),
  ...values("warnings", real.warnings ?? [], emulator.warnings ?? []),
  ...values("body", real.body, emulator.body),
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether `path` is `prefix` itself or lies below it. In the prefix, `*` stands for any run of
 * characters within one path segment (`items[*].data`, `metadata.annotations.*`), and a lone
 * `*` covers everything.
 *
 * @example
 * ```ts
 * Compare.isUnder("body.metadata.labels.x", "body.metadata") // true
 * Compare.isUnder("body.metadataX", "body.metadata")         // false
 * Compare.isUnder("body.items[3].data", "body.items[*]")     // true
 * ```
 */
export const isUnder = (path: string, prefix: string): boolean => {
  if (prefix === "*") return true;
  const pattern = escapeRegExp(prefix).replace(/\\\*/g, "[^.\\[\\]]*");
  return new RegExp(`^${pattern}(?=$|[.[])`).test(path);
};
