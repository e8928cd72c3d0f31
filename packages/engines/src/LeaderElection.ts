/**
 * Leader election over one Lease as a pure state machine, with client-go's rules so that our
 * replicas and any tool reading the Lease agree on who leads:
 *
 * - a candidate takes the lease when it is absent (create), released (empty holder), already its
 *   own, or expired; expiry is measured on the candidate's own clock: `leaseDurationSeconds`
 *   after the moment it last saw the record change, never from the timestamps in it (so clock
 *   skew between replicas does not matter);
 * - taking it from another holder (or from nobody) increments `leaseTransitions` and sets
 *   `acquireTime`; renewing keeps both and moves `renewTime`;
 * - writes carry the observed `resourceVersion`, so of two candidates only one can win;
 * - the leader renews every `retryPeriod`, first optimistically with its last write's version,
 *   else after reading the lease again.
 *
 * Fencing goes further than client-go: a leader leads only until `renewDeadline` after the
 * start of its last successful write. That is before any other candidate can see the lease
 * expire (`renewDeadline < leaseDuration`, and the others start their expiry clocks no earlier
 * than the write), so a replica that stopped renewing stops acting before another can start.
 * Releasing (graceful exit) writes an empty holder with a 1-second duration, as client-go's
 * `ReleaseOnCancel` does, and stops leading at once. A write the stop cut short (a renewal, or
 * a takeover) may have landed after all: then the release's version is stale and it is refused,
 * or the candidate does not know it holds the Lease. Either way it reads the Lease and releases
 * it if the Lease still names it ({@link releaseFound}).
 *
 * The interpreter (`Leadership`) performs the actions and feeds the outcomes back; all times are
 * epoch microseconds from the replica's `Clock`.
 */
import * as LeaseRecord from "./LeaseRecord.ts";

/** The election's parameters (times in seconds, as in the settings). */
export interface Config {
  readonly identity: string;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
}

/** The Lease as last read or written. */
export interface Observed {
  readonly record: LeaseRecord.LeaseRecord;
  readonly resourceVersion: string;
  /** When the record was seen to change (the start of its expiry clock). */
  readonly at: number;
}

/** What a candidate knows. */
export interface State {
  readonly observed: Observed | undefined;
  /** The start of the last successful write while holding the lease; `undefined`: not leading. */
  readonly renewedAt: number | undefined;
}

/** Nothing observed, not leading. */
export const initial: State = { observed: undefined, renewedAt: undefined };

/** What the interpreter does next. */
export type Action =
  | { readonly _tag: "Get" }
  | { readonly _tag: "Create"; readonly record: LeaseRecord.LeaseRecord }
  | {
      readonly _tag: "Update";
      readonly record: LeaseRecord.LeaseRecord;
      readonly resourceVersion: string;
    }
  | { readonly _tag: "Wait" };

/** The result of reading the Lease. */
export type Observation =
  | { readonly _tag: "Absent" }
  | {
      readonly _tag: "Found";
      readonly record: LeaseRecord.LeaseRecord;
      readonly resourceVersion: string;
    };

const MICROS = 1_000_000;

/**
 * Whether this candidate leads at `now` (fencing included).
 *
 * @example
 * isLeading(config, { observed, renewedAt: 0 }, 9_999_999) // true with renewDeadline 10
 */
export const isLeading = (config: Config, state: State, now: number): boolean =>
  state.renewedAt !== undefined && now < state.renewedAt + config.renewDeadline * MICROS;

/** Whether the observed lease is still valid at `now` (client-go's observed-time rule). */
const valid = (observed: Observed, now: number): boolean =>
  observed.at + observed.record.leaseDurationSeconds * MICROS > now;

/**
 * The next step of a round: the leader renews optimistically with the version of its last
 * write; anyone else reads the lease first.
 *
 * @example
 * plan(config, initial, 0) // { _tag: "Get" }
 */
export const plan = (config: Config, state: State, now: number): Action => {
  const observed = state.observed;
  if (observed !== undefined && isLeading(config, state, now) && valid(observed, now)) {
    return {
      _tag: "Update",
      record: renewal(config, observed.record, now),
      resourceVersion: observed.resourceVersion,
    };
  }
  return { _tag: "Get" };
};

const renewal = (config: Config, old: LeaseRecord.LeaseRecord, now: number): LeaseRecord.LeaseRecord => ({
  holderIdentity: config.identity,
  leaseDurationSeconds: config.leaseDuration,
  acquireTime: old.acquireTime,
  renewTime: now,
  leaseTransitions: old.leaseTransitions,
});

/**
 * Takes in what reading the lease found, and decides: create it, take or renew it, or wait
 * because another holder's lease is still valid.
 *
 * @example
 * observe(config, initial, { _tag: "Absent" }, now).action._tag // "Create"
 */
export const observe = (
  config: Config,
  state: State,
  observation: Observation,
  now: number,
): { readonly state: State; readonly action: Action } => {
  const fresh: LeaseRecord.LeaseRecord = {
    holderIdentity: config.identity,
    leaseDurationSeconds: config.leaseDuration,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: 0,
  };
  if (observation._tag === "Absent") return { state, action: { _tag: "Create", record: fresh } };
  const { record, resourceVersion } = observation;
  const changed =
    state.observed === undefined ||
    LeaseRecord.fingerprint(state.observed.record) !== LeaseRecord.fingerprint(record);
  const observed: Observed = {
    record,
    resourceVersion,
    at: changed || state.observed === undefined ? now : state.observed.at,
  };
  const own = record.holderIdentity === config.identity;
  // A replica that no longer leads (fenced) must not keep counting on its earlier renewal.
  const next: State = { observed, renewedAt: own ? state.renewedAt : undefined };
  if (record.holderIdentity !== "" && !own && valid(observed, now))
    return { state: next, action: { _tag: "Wait" } };
  const updated = own
    ? renewal(config, record, now)
    : { ...fresh, leaseTransitions: record.leaseTransitions + 1 };
  return { state: next, action: { _tag: "Update", record: updated, resourceVersion } };
};

/**
 * A write (create or update) started at `startedAt` succeeded with this version: the candidate
 * leads (if the record names it) until `renewDeadline` after `startedAt`.
 *
 * @example
 * written(config, record, "42", startedAt, now).renewedAt // startedAt
 */
export const written = (
  config: Config,
  record: LeaseRecord.LeaseRecord,
  resourceVersion: string,
  startedAt: number,
  now: number,
): State => ({
  observed: { record, resourceVersion, at: now },
  renewedAt: record.holderIdentity === config.identity ? startedAt : undefined,
});

/**
 * The release at a graceful exit: an update emptying the holder (client-go's record: duration
 * 1 s, both times now, transitions kept), or nothing when this candidate does not hold it. The
 * candidate stops leading before the write.
 *
 * @example
 * release(config, leading, now).action._tag // "Update"
 */
export const release = (
  config: Config,
  state: State,
  now: number,
): { readonly state: State; readonly action: Action } => {
  const observed = state.observed;
  const next: State = { ...state, renewedAt: undefined };
  if (observed === undefined || observed.record.holderIdentity !== config.identity) {
    return { state: next, action: { _tag: "Wait" } };
  }
  return {
    state: next,
    action: {
      _tag: "Update",
      resourceVersion: observed.resourceVersion,
      record: {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: observed.record.leaseTransitions,
      },
    },
  };
};

/**
 * The release from the Lease as read again, when the release from what the candidate knew was
 * refused or not possible: a write cut short by the stop (a renewal, or a takeover) may have
 * reached the server after all, so the version the candidate knew is stale, or it does not know
 * it holds the Lease. Empty the holder if the Lease still names this candidate (at the version
 * just read), else there is nothing to release. client-go does not look again, and its standbys
 * then wait out the whole lease duration.
 *
 * @example
 * releaseFound(config, { _tag: "Found", record: mine, resourceVersion: "9" }, now).action._tag // "Update"
 */
export const releaseFound = (
  config: Config,
  observation: Observation,
  now: number,
): { readonly state: State; readonly action: Action } =>
  observation._tag === "Absent"
    ? { state: initial, action: { _tag: "Wait" } }
    : release(
        config,
        {
          observed: { record: observation.record, resourceVersion: observation.resourceVersion, at: now },
          renewedAt: undefined,
        },
        now,
      );

/**
 * Microseconds until the next round: one retry period, but never past the leader's fencing
 * deadline (so the role changes exactly then), nor past the moment another holder's lease
 * expires (so a standby takes over within lease duration + retry period of the last renewal).
 *
 * @example
 * delay(config, initial, 0) // 2_000_000 with retryPeriod 2
 */
export const delay = (config: Config, state: State, now: number): number => {
  const retry = config.retryPeriod * MICROS;
  if (isLeading(config, state, now) && state.renewedAt !== undefined) {
    return Math.max(0, Math.min(retry, state.renewedAt + config.renewDeadline * MICROS - now));
  }
  const observed = state.observed;
  if (observed === undefined || observed.record.holderIdentity === "") return retry;
  const expiry = observed.at + observed.record.leaseDurationSeconds * MICROS - now;
  return expiry > 0 ? Math.min(retry, expiry) : retry;
};

/** Why a configuration cannot work (client-go's own checks), or `undefined` when it can. */
export const invalid = (config: Config): string | undefined => {
  if (config.identity === "") return "the identity of a leader-election candidate must not be empty";
  if (!(config.leaseDuration > config.renewDeadline))
    return `the lease duration (${config.leaseDuration} s) must be longer than the renew deadline (${config.renewDeadline} s)`;
  if (!(config.renewDeadline > config.retryPeriod * 1.2))
    return `the renew deadline (${config.renewDeadline} s) must be longer than 1.2 retry periods (${config.retryPeriod} s)`;
  if (!(config.retryPeriod > 0)) return "the retry period must be positive";
  if (!Number.isInteger(config.leaseDuration)) return "the lease duration must be whole seconds";
  return undefined;
};
