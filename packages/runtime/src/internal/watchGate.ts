/**
 * The gate between the namespace observer and the watches, as a pure state (Kopf's
 * `insights.namespaces` followed by the peering tasks before the watchers, and its
 * `operator_paused` toggles): every observed set of served namespaces gets a sequence number;
 * it is admitted — becomes the set the watches follow — only once every follower has
 * acknowledged it (or left); while any pause is set, nothing is watchable. Because a follower
 * sets its pauses before it acknowledges, a pause it takes for a new namespace is in the state
 * before that namespace is admitted, so the watches never see the one without the other.
 */

/** A set of served namespaces (`null`: cluster-wide). */
export type Namespaces = ReadonlySet<string | null>;

/** The gate at one moment. */
export interface State {
  /** The latest observed set and its sequence number (from 1); `undefined` before the first. */
  readonly observed: { readonly seq: number; readonly namespaces: Namespaces } | undefined;
  /** The latest set every follower acknowledged: what the watches follow (unless paused). */
  readonly admitted: Namespaces | undefined;
  /** The followers by id, with the sequence number they acknowledged last (0: none yet). */
  readonly followers: ReadonlyMap<number, number>;
  /** The ids of the pauses that are set. */
  readonly pauses: ReadonlySet<number>;
}

/** No set observed, no followers, no pauses. */
export const initial: State = {
  observed: undefined,
  admitted: undefined,
  followers: new Map(),
  pauses: new Set(),
};

const NOTHING: Namespaces = new Set();

/** Admits the observed set once every follower has acknowledged it. */
const advance = (state: State): State => {
  const observed = state.observed;
  if (observed === undefined || state.admitted === observed.namespaces) return state;
  for (const acknowledged of state.followers.values()) if (acknowledged < observed.seq) return state;
  return { ...state, admitted: observed.namespaces };
};

/**
 * The namespace observer reports a set: it is admitted at once without followers, else once
 * they all acknowledged it (a newer set supersedes an unacknowledged one).
 *
 * @example
 * observe(initial, new Set(["ns1"])).admitted // Set { "ns1" }
 */
export const observe = (state: State, namespaces: Namespaces): State =>
  advance({ ...state, observed: { seq: (state.observed?.seq ?? 0) + 1, namespaces } });

/**
 * A follower joins: the set observed now, and every later one, waits for its acknowledgement.
 *
 * @example
 * join(observe(initial, new Set(["ns1"])), 1).followers // Map { 1 => 0 }
 */
export const join = (state: State, id: number): State =>
  state.followers.has(id) ? state : { ...state, followers: new Map(state.followers).set(id, 0) };

/**
 * A follower has followed the set numbered `seq` (and is ready for it to be watched).
 *
 * @example
 * acknowledge(join(observe(initial, new Set(["ns1"])), 1), 1, 1).admitted // Set { "ns1" }
 */
export const acknowledge = (state: State, id: number, seq: number): State => {
  const previous = state.followers.get(id);
  if (previous === undefined || previous >= seq) return state;
  return advance({ ...state, followers: new Map(state.followers).set(id, seq) });
};

/**
 * A follower leaves: nothing waits for it any more.
 *
 * @example
 * leave(join(observe(initial, new Set(["ns1"])), 1), 1).admitted // Set { "ns1" }
 */
export const leave = (state: State, id: number): State => {
  if (!state.followers.has(id)) return state;
  const followers = new Map(state.followers);
  followers.delete(id);
  return advance({ ...state, followers });
};

/**
 * Sets (`true`) or clears (`false`) the pause `id`; a cleared pause is forgotten.
 *
 * @example
 * watchable(pause(observe(initial, new Set(["ns1"])), 7, true)) // Set {}
 */
export const pause = (state: State, id: number, paused: boolean): State => {
  if (state.pauses.has(id) === paused) return state;
  const pauses = new Set(state.pauses);
  if (paused) pauses.add(id);
  else pauses.delete(id);
  return { ...state, pauses };
};

/**
 * The namespaces the watches may follow: the admitted set, or none while any pause is set or
 * before the first set is admitted.
 *
 * @example
 * watchable(observe(initial, new Set(["ns1"]))) // Set { "ns1" }
 */
export const watchable = (state: State): Namespaces =>
  state.pauses.size > 0 || state.admitted === undefined ? NOTHING : state.admitted;
