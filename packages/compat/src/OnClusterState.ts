/**
 * What an operator leaves on an object (docs/behaviour/causes.md, docs/behaviour/progress.md): Kopf's annotations (progress records, the
 * last-handled configuration), the finalizers and the status — and the comparison of two such
 * states, from Python Kopf and from this port. Timestamps in progress records differ between any
 * two runs, so they are checked for Kopf's format (`2020-01-01T00:00:00.000000+00:00`, or the
 * legacy form without the offset) and then masked; everything else must be byte-identical.
 */

/** Kopf's default annotation prefix. */
export const PREFIX = "kopf.zalando.org/";

/** The on-cluster state an operator is responsible for. */
export interface State {
  /** Kopf's annotations, by key, as their raw strings. */
  readonly annotations: Readonly<Record<string, string>>;
  readonly finalizers: ReadonlyArray<string>;
  readonly status: unknown;
}

/** A body as read from the API (only the parts used). */
export interface Body {
  readonly metadata?: {
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers?: ReadonlyArray<string>;
  };
  readonly status?: unknown;
}

/**
 * The operator's part of an object.
 *
 * @example
 * stateOf(body) // { annotations: { "kopf.zalando.org/last-handled-configuration": "..." }, finalizers: [...], status: {...} }
 */
export const stateOf = (body: Body | undefined): State => ({
  annotations: Object.fromEntries(
    Object.entries(body?.metadata?.annotations ?? {})
      .filter(([key]) => key.startsWith(PREFIX))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ),
  finalizers: body?.metadata?.finalizers ?? [],
  status: body?.status ?? null,
});

const TIME_VALUE =
  /"(started|stopped|delayed)"(:\s?)"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{6})?(?:\+00:00)?"/g;

/** A difference between two states, by path. */
export interface Difference {
  readonly path: string;
  readonly left: unknown;
  readonly right: unknown;
}

/**
 * Replaces the timestamps of progress records by `<time>` in the raw annotation strings — only
 * values in Kopf's time format, so a wrong format stays visible — and keeps every other byte.
 */
export const masked = (state: State): State => ({
  ...state,
  annotations: Object.fromEntries(
    Object.entries(state.annotations).map(([key, value]) => [
      key,
      key === `${PREFIX}last-handled-configuration` ? value : value.replace(TIME_VALUE, '"$1"$2"<time>"'),
    ]),
  ),
});

const walk = (path: string, left: unknown, right: unknown, out: Array<Difference>): void => {
  if (Object.is(left, right)) return;
  const bothObjects =
    typeof left === "object" && left !== null && typeof right === "object" && right !== null;
  if (!bothObjects || Array.isArray(left) !== Array.isArray(right)) {
    out.push({ path, left, right });
    return;
  }
  const keys = new Set([...Object.keys(left as object), ...Object.keys(right as object)]);
  for (const key of keys) {
    walk(
      `${path}/${key}`,
      (left as Record<string, unknown>)[key],
      (right as Record<string, unknown>)[key],
      out,
    );
  }
};

/**
 * The differences between two states after masking the timestamps; empty when they match.
 *
 * @example
 * differences(stateOf(byKopf), stateOf(byUs)) // []
 */
export const differences = (left: State, right: State): ReadonlyArray<Difference> => {
  const out: Array<Difference> = [];
  walk("", masked(left), masked(right), out);
  return out;
};
