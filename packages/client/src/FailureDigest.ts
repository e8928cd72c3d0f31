/**
 * Aggregated log lines for repeated request failures. During an outage every object in flight
 * retries its requests, and one line per attempt floods the log. So per request kind (the verb
 * and the resource, not the object: `PATCH kopfexamples.kopf.dev`), the first failed attempt is
 * logged in full; later ones within the interval are logged at debug level only and counted; the
 * first failure after the interval logs one summary line with the count (and starts a new
 * interval); the next success of that kind says how many attempts failed since the last line.
 * Final failures ("escalating") and the objects' own lines are not aggregated.
 *
 * The decisions are pure ({@link onFailure}, {@link onSuccess}); time comes from `Clock`.
 */
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";

/** What is remembered per request kind. @category models */
export interface Entry {
  /** When the current interval began (epoch milliseconds). */
  readonly since: number;
  /** Failed attempts not logged in full since then. */
  readonly suppressed: number;
}

/** What to log for one event. @category models */
export type Output =
  | { readonly _tag: "Print" }
  | { readonly _tag: "Quiet" }
  | { readonly _tag: "Summary"; readonly count: number; readonly seconds: number }
  | { readonly _tag: "Recovered"; readonly count: number };

const print: Output = { _tag: "Print" };
const quiet: Output = { _tag: "Quiet" };

/**
 * A failed attempt of a request kind at `now`: print the first, count the rest within the
 * interval, summarise them with the first one after it.
 *
 * @example
 * ```ts
 * onFailure(undefined, 0, 10_000)                        // [{ since: 0, suppressed: 0 }, Print]
 * onFailure({ since: 0, suppressed: 0 }, 5_000, 10_000)  // [{ since: 0, suppressed: 1 }, Quiet]
 * onFailure({ since: 0, suppressed: 4 }, 12_000, 10_000) // [{ since: 12_000, suppressed: 0 }, Summary 5 in 12s]
 * ```
 */
export const onFailure = (
  entry: Entry | undefined,
  now: number,
  intervalMillis: number,
): readonly [Entry, Output] => {
  if (entry === undefined) return [{ since: now, suppressed: 0 }, print];
  if (now - entry.since < intervalMillis) return [{ ...entry, suppressed: entry.suppressed + 1 }, quiet];
  const next = { since: now, suppressed: 0 };
  if (entry.suppressed === 0) return [next, print];
  return [
    next,
    { _tag: "Summary", count: entry.suppressed + 1, seconds: Math.round((now - entry.since) / 1000) },
  ];
};

/**
 * A successful request of a kind: forget the kind; say how many attempts failed unlogged.
 *
 * @example
 * ```ts
 * onSuccess({ since: 0, suppressed: 3 }) // Recovered 3
 * onSuccess(undefined)                  // Quiet
 * ```
 */
export const onSuccess = (entry: Entry | undefined): Output =>
  entry === undefined || entry.suppressed === 0 ? quiet : { _tag: "Recovered", count: entry.suppressed };

const COLLECTION_ROOTS: Readonly<Record<string, number>> = { api: 2, apis: 3 };

/**
 * The kind of a request for aggregation: the verb and the resource (with its group and
 * subresource), without namespace, name or query.
 *
 * @example
 * ```ts
 * requestKind("PATCH", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/ex1/status") // "PATCH kopfexamples.kopf.dev/status"
 * requestKind("GET", "/api/v1/pods?watch=true")                                    // "GET pods"
 * ```
 */
export const requestKind = (method: string, path: string): string => {
  const segments = path
    .split("?")[0]!
    .split("/")
    .filter((part) => part !== "");
  const root = COLLECTION_ROOTS[segments[0] ?? ""];
  if (root === undefined || segments.length <= root)
    return `${method} ${segments.slice(0, 2).join("/") || "/"}`;
  const group = segments[0] === "apis" ? segments[1] : undefined;
  let rest = segments.slice(root);
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [resource, , subresource] = rest;
  return `${method} ${resource}${group ? `.${group}` : ""}${subresource ? `/${subresource}` : ""}`;
};

/** The digest of one client: shared by all its requests. @category models */
export interface FailureDigest {
  /** A failed attempt that will be retried; `line` is its full log line. */
  readonly failed: (kind: string, line: string) => Effect.Effect<void>;
  readonly succeeded: (kind: string) => Effect.Effect<void>;
  /**
   * {@link FailureDigest.succeeded}, told at once: the line to log if this success ends a series
   * of failures, else `undefined` (as after nearly every request: no effect to run then).
   */
  readonly succeededNow: (kind: string) => Effect.Effect<void> | undefined;
}

/**
 * A digest logging through Effect's logger, with summaries at most every `intervalSeconds`.
 *
 * @example
 * ```ts
 * const digest = FailureDigest.make(10)
 * yield* digest.failed("GET pods", "Request attempt #1/9 failed; will retry: GET /api/v1/pods -> ...")
 * ```
 */
export const make = (intervalSeconds = 10): FailureDigest => {
  const entries = new Map<string, Entry>();
  const interval = intervalSeconds * 1000;
  const succeededNow = (kind: string): Effect.Effect<void> | undefined => {
    const entry = entries.get(kind);
    if (entry === undefined) return undefined;
    entries.delete(kind);
    const output = onSuccess(entry);
    return output._tag === "Recovered"
      ? Effect.logInfo(`${kind} succeeds again after ${output.count} more failed attempts.`)
      : undefined;
  };
  return {
    failed: (kind, line) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const [entry, output] = onFailure(entries.get(kind), now, interval);
        entries.set(kind, entry);
        switch (output._tag) {
          case "Summary":
            return Effect.logError(
              `${output.count} request attempts of ${kind} failed in the last ${output.seconds}s and are retried; the latest: ${line}`,
            );
          case "Quiet":
            return Effect.logDebug(line);
          default:
            return Effect.logError(line);
        }
      }),
    succeeded: (kind) => Effect.suspend(() => succeededNow(kind) ?? Effect.void),
    succeededNow,
  };
};
