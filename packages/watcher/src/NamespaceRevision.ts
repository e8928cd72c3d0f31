/**
 * Which namespaces an operator serves, decided purely from what the namespace watcher sees
 * (Kopf's `revise_namespaces`, docs/behaviour/watching.md#namespaces), folded over the watcher's items:
 *
 * - a namespace matching any pattern is added when it appears;
 * - a `DELETED` event removes it; so does a `deletionTimestamp` with non-empty
 *   `status.conditions` none of which is `status: "True"`; a `deletionTimestamp` with a "True"
 *   condition keeps it ("termination pending", logged per condition); a `deletionTimestamp`
 *   without conditions keeps it;
 * - a (re)listing replaces the set with what the listing shows, so namespaces deleted while the
 *   watch was disconnected are dropped too (Kopf ignores the listing events of its watch);
 * - without permission to list namespaces (403), the "specific" namespaces (plain names in the
 *   patterns) are assumed to exist; without permission to watch, the set stays as listed. Both
 *   log Kopf's warnings and stop observing.
 *
 * Deviation: Kopf keeps a namespace whose `DELETED` event still carries a "True" condition; here
 * a `DELETED` event always removes it (the namespace is gone).
 */
import type { RawBody, RawEventType } from "@kopf/structs";
import type * as WatchState from "./WatchState.ts";

/** A condition that blocks a namespace's termination. */
export interface Blocker {
  readonly namespace: string;
  readonly reason: string;
  readonly message: string;
}

/** The result of applying one namespace event. */
export interface Revised {
  readonly namespaces: ReadonlySet<string>;
  readonly blockers: ReadonlyArray<Blocker>;
}

interface Condition {
  readonly status?: unknown;
  readonly reason?: unknown;
  readonly message?: unknown;
}

const conditionsOf = (body: RawBody): ReadonlyArray<Condition> => {
  const conditions = (body.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as ReadonlyArray<Condition>) : [];
};

/**
 * Applies one namespace event (`type: null` for a listed body) to the set of served namespaces.
 *
 * @example
 * revise(new Set(), { type: null, object: { metadata: { name: "ns1" } } }, (n) => n.startsWith("ns"))
 * // { namespaces: Set { "ns1" }, blockers: [] }
 */
export const revise = (
  current: ReadonlySet<string>,
  event: { readonly type: RawEventType | null; readonly object: RawBody },
  matches: (name: string) => boolean,
): Revised => {
  const name = event.object.metadata?.name;
  if (typeof name !== "string" || name === "") return { namespaces: current, blockers: [] };
  const conditions = conditionsOf(event.object);
  const marked = Boolean(event.object.metadata?.deletionTimestamp);
  const blockers = conditions
    .filter((c) => c.status === "True")
    .map((c) => ({
      namespace: name,
      reason: typeof c.reason === "string" ? c.reason : "",
      message: typeof c.message === "string" ? c.message : "",
    }));
  if (event.type === "DELETED") return { namespaces: without(current, name), blockers: [] };
  if (marked && conditions.length > 0) {
    return blockers.length > 0
      ? { namespaces: current, blockers }
      : { namespaces: without(current, name), blockers: [] };
  }
  if (matches(name) && !current.has(name)) return { namespaces: new Set([...current, name]), blockers: [] };
  return { namespaces: current, blockers: [] };
};

const without = (set: ReadonlySet<string>, name: string): ReadonlySet<string> => {
  if (!set.has(name)) return set;
  const next = new Set(set);
  next.delete(name);
  return next;
};

/** The observer's memory between watcher items. */
export interface State {
  /** The namespaces served now. */
  readonly namespaces: ReadonlySet<string>;
  /** The set being rebuilt from a (re)listing in progress, or `null` while watching. */
  readonly staging: ReadonlySet<string> | null;
  /** Whether the initial set is known (after the first listing or a fallback). */
  readonly ready: boolean;
  /** Whether observation has stopped (no permissions): the set no longer changes. */
  readonly stopped: boolean;
}

/** What a fold step asks the observer to log. */
export interface Logs {
  readonly warnings: ReadonlyArray<string>;
  readonly debug: ReadonlyArray<string>;
}

/** Patterns as the fold needs them: a matcher and the specific (plain) namespace names. */
export interface Patterns {
  readonly matches: (name: string) => boolean;
  readonly specific: ReadonlySet<string>;
}

/** Before the first listing. */
export const initial: State = { namespaces: new Set(), staging: new Set(), ready: false, stopped: false };

const pending = (blockers: ReadonlyArray<Blocker>): ReadonlyArray<string> =>
  blockers.map(
    (b) => `Namespace ${JSON.stringify(b.namespace)} termination pending: ${b.reason}: ${b.message}`,
  );

/**
 * Folds one item of the namespace watcher into the observer's state.
 *
 * @example
 * const patterns = { matches: (n: string) => n.startsWith("ns"), specific: new Set<string>() }
 * let state = NamespaceRevision.initial
 * state = NamespaceRevision.step(state, { _tag: "Event", type: null, object: { metadata: { name: "ns1" } } }, patterns).state
 * state = NamespaceRevision.step(state, { _tag: "Listed", resourceVersion: "1" }, patterns).state
 * state.namespaces // Set { "ns1" }
 */
export const step = (
  state: State,
  item: WatchState.Output<RawBody>,
  patterns: Patterns,
): { readonly state: State; readonly logs: Logs } => {
  const none: Logs = { warnings: [], debug: [] };
  if (state.stopped) return { state, logs: none };
  switch (item._tag) {
    case "Event": {
      if (item.type === null) {
        const base = state.staging ?? new Set<string>();
        const name = item.object.metadata?.name;
        const seeded =
          typeof name === "string" && state.namespaces.has(name) && !base.has(name)
            ? new Set([...base, name])
            : base;
        const revised = revise(seeded, item, patterns.matches);
        return {
          state: { ...state, staging: revised.namespaces },
          logs: { warnings: [], debug: pending(revised.blockers) },
        };
      }
      const revised = revise(state.namespaces, item, patterns.matches);
      return {
        state: { ...state, namespaces: revised.namespaces },
        logs: { warnings: [], debug: pending(revised.blockers) },
      };
    }
    case "Listed":
      return {
        state: { ...state, namespaces: state.staging ?? state.namespaces, staging: null, ready: true },
        logs: none,
      };
    case "Problem": {
      const forbidden = item.failure?.reason === "Forbidden";
      if (!forbidden) {
        // A relisting restarts from scratch: forget a partial staging set.
        return item.recovery === "relist"
          ? { state: { ...state, staging: new Set() }, logs: none }
          : { state, logs: none };
      }
      if (!state.ready) {
        const specific = [...patterns.specific].sort();
        return {
          state: { namespaces: new Set(specific), staging: null, ready: true, stopped: true },
          logs: {
            warnings: [
              "Not enough permissions to list namespaces. Falling back to a list of namespaces which are " +
                `assumed to exist: ${JSON.stringify(specific)}`,
            ],
            debug: [],
          },
        };
      }
      return {
        state: { ...state, staging: null, stopped: true },
        logs: {
          warnings: [
            "Not enough permissions to watch for namespaces: changes (deletion/creation) will not be " +
              "noticed; the namespaces are only refreshed on operator restarts.",
          ],
          debug: [],
        },
      };
    }
  }
};
