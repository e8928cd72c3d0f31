/**
 * The pure state machine behind one list-then-watch stream: it decides, for every input the
 * watcher observes (a listed item, the end of a listing, a watch event, a bookmark, the end or
 * failure of a watch request, an `ERROR` event, the inactivity watchdog firing), what to emit
 * downstream, which resourceVersion to remember, and what the watcher does next: keep reading,
 * open a new watch from a resourceVersion, or relist, each after a computed delay.
 *
 * Rules (docs/behaviour/watching.md#list-and-watch, including where we are stricter than Kopf):
 * - list, then watch from the list's resourceVersion (bookmarks on);
 * - every event and bookmark advances the remembered resourceVersion;
 * - a watch request that ends, breaks, or goes quiet is resumed from the last resourceVersion,
 *   never relisted; only `410 Gone` (as an `ERROR` event or as the request's status) relists;
 * - errors are values on the stream (a `Problem`), never its end. Unlike Kopf, which kills the
 *   watcher on an `ERROR` event other than 410 and never restarts it, such errors relist after a
 *   backoff;
 * - consecutive failures without progress back off exponentially from `reconnectBackoff` up to
 *   `maxBackoff`; the first break of a stream that made progress resumes immediately (as Kopf).
 */

/** The kinds of changes a watch delivers to consumers; `null` marks an item of a listing. */
export type EventType = "ADDED" | "MODIFIED" | "DELETED";

/** A failure of a list or watch request, as far as the state machine needs to know it. */
export interface Failure {
  /** The `KubeApiError` reason ("Gone", "TransportError", "Timeout", "Forbidden", …). */
  readonly reason: string;
  readonly message: string;
  readonly status?: number | undefined;
  /** The server's `Retry-After` (429): no retry comes sooner. */
  readonly retryAfterSeconds?: number | undefined;
}

/** The `Status` object of an `ERROR` watch event. */
export interface ErrorStatus {
  readonly code?: number | undefined;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
}

/** Everything the watcher driver can observe. */
export type Input<O> =
  | { readonly _tag: "ListItem"; readonly object: O }
  | { readonly _tag: "Listed"; readonly resourceVersion: string | undefined }
  | { readonly _tag: "ListFailed"; readonly failure: Failure }
  | {
      readonly _tag: "Event";
      readonly type: EventType;
      readonly object: O;
      readonly resourceVersion: string | undefined;
    }
  | { readonly _tag: "Bookmark"; readonly resourceVersion: string | undefined }
  | { readonly _tag: "ErrorEvent"; readonly status: ErrorStatus }
  | { readonly _tag: "UnknownEvent"; readonly type: string }
  | { readonly _tag: "StreamEnded" }
  | { readonly _tag: "StreamFailed"; readonly failure: Failure }
  | { readonly _tag: "Inactive"; readonly seconds: number };

/** What the watcher does next. */
export type Action =
  | { readonly _tag: "Continue" }
  | {
      readonly _tag: "Watch";
      readonly resourceVersion: string | undefined;
      readonly delayMillis: number;
    }
  | { readonly _tag: "Relist"; readonly delayMillis: number };

/** The kinds of problems reported on the stream. */
export type ProblemReason =
  | "ListFailed"
  | "WatchFailed"
  | "Gone"
  | "ErrorEvent"
  | "UnknownEvent"
  | "Inactive";

/** A diagnostic value on the stream: what went wrong and how the watcher recovers. */
export interface Problem {
  readonly _tag: "Problem";
  readonly reason: ProblemReason;
  readonly message: string;
  /** `continue`: nothing changes; `resume`: a new watch from the last resourceVersion; `relist`. */
  readonly recovery: "continue" | "resume" | "relist";
  readonly delayMillis: number;
  readonly failure?: Failure | undefined;
}

/** What consumers receive: events (`type: null` while listing), listing markers, problems. */
export type Output<O> =
  | {
      readonly _tag: "Event";
      readonly type: EventType | null;
      readonly object: O;
      /** Set on `DELETED` events the watcher inferred from a relisting (see `Watcher.Options`). */
      readonly synthetic?: true;
    }
  | { readonly _tag: "Listed"; readonly resourceVersion: string | undefined }
  | Problem;

/** The machine's memory between inputs. */
export interface WatchState {
  readonly phase: "listing" | "watching";
  /** The last resourceVersion seen (of the listing, of an event, or of a bookmark). */
  readonly resourceVersion: string | undefined;
  /** Consecutive failures without progress (an event, a bookmark, or a finished listing). */
  readonly failures: number;
  /** Events and bookmarks received on the current watch request. */
  readonly received: number;
}

/** Timing parameters, in milliseconds. */
export interface Config {
  readonly reconnectBackoffMillis: number;
  readonly maxBackoffMillis: number;
}

/** The outcome of one step. */
export interface Step<O> {
  readonly state: WatchState;
  readonly emit: ReadonlyArray<Output<O>>;
  readonly action: Action;
}

/** The state before the first listing; the driver starts with {@link start}. */
export const initial: WatchState = { phase: "listing", resourceVersion: undefined, failures: 0, received: 0 };

/** The first action of every watcher: list at once. */
export const start: Action = { _tag: "Relist", delayMillis: 0 };

/**
 * The delay after the `failures`-th consecutive failure: `reconnectBackoff` doubled for each
 * further failure, capped at `maxBackoff` (never below `reconnectBackoff`).
 *
 * @example
 * backoff({ reconnectBackoffMillis: 100, maxBackoffMillis: 1000 }, 3) // 400
 */
export const backoff = (config: Config, failures: number): number => {
  const base = Math.max(0, config.reconnectBackoffMillis);
  const cap = Math.max(base, config.maxBackoffMillis);
  const exponent = Math.min(Math.max(0, failures - 1), 30);
  return Math.min(cap, base * 2 ** exponent);
};

/** Whether an `ERROR` event's status means the resourceVersion is too old (410 Gone). */
export const isGone = (status: ErrorStatus): boolean =>
  status.code === 410 || status.reason === "Gone" || status.reason === "Expired";

const CONTINUE: Action = { _tag: "Continue" };

/** A delay no shorter than the failure's `Retry-After`. */
const notBefore = (failure: Failure, delayMillis: number): number =>
  Math.max(delayMillis, (failure.retryAfterSeconds ?? 0) * 1000);

const problem = (reason: ProblemReason, message: string, action: Action, failure?: Failure): Problem => ({
  _tag: "Problem",
  reason,
  message,
  recovery: action._tag === "Continue" ? "continue" : action._tag === "Watch" ? "resume" : "relist",
  delayMillis: action._tag === "Continue" ? 0 : action.delayMillis,
  ...(failure === undefined ? {} : { failure }),
});

const relist = <O>(state: WatchState, emit: (action: Action) => Output<O>, delayMillis: number): Step<O> => {
  const action: Action = { _tag: "Relist", delayMillis };
  return {
    state: { ...state, phase: "listing", failures: state.failures + 1, received: 0 },
    emit: [emit(action)],
    action,
  };
};

const resume = (state: WatchState, delayMillis: number): Action => ({
  _tag: "Watch",
  resourceVersion: state.resourceVersion,
  delayMillis,
});

const describeStatus = (status: ErrorStatus): string =>
  [status.code, status.reason, status.message].filter((part) => part !== undefined).join(" ") || "no details";

/**
 * Advances the machine by one input. Total: every input is accepted in every state.
 *
 * @example
 * const config = { reconnectBackoffMillis: 100, maxBackoffMillis: 30_000 };
 * const listed = step(initial, { _tag: "Listed", resourceVersion: "10" }, config);
 * listed.action; // { _tag: "Watch", resourceVersion: "10", delayMillis: 0 }
 */
export const step = <O>(state: WatchState, input: Input<O>, config: Config): Step<O> => {
  switch (input._tag) {
    case "ListItem":
      return { state, emit: [{ _tag: "Event", type: null, object: input.object }], action: CONTINUE };
    case "Listed": {
      const next: WatchState = {
        phase: "watching",
        resourceVersion: input.resourceVersion,
        failures: 0,
        received: 0,
      };
      return {
        state: next,
        emit: [{ _tag: "Listed", resourceVersion: input.resourceVersion }],
        action: resume(next, 0),
      };
    }
    case "ListFailed": {
      const delay = notBefore(input.failure, backoff(config, state.failures + 1));
      return relist(
        state,
        (action) => problem("ListFailed", `Listing failed: ${input.failure.message}`, action, input.failure),
        delay,
      );
    }
    case "Event":
      return {
        state: {
          ...state,
          resourceVersion: input.resourceVersion ?? state.resourceVersion,
          failures: 0,
          received: state.received + 1,
        },
        emit: [{ _tag: "Event", type: input.type, object: input.object }],
        action: CONTINUE,
      };
    case "Bookmark":
      return {
        state: {
          ...state,
          resourceVersion: input.resourceVersion ?? state.resourceVersion,
          failures: 0,
          received: state.received + 1,
        },
        emit: [],
        action: CONTINUE,
      };
    case "ErrorEvent": {
      const gone = isGone(input.status);
      const delay = gone ? Math.max(0, config.reconnectBackoffMillis) : backoff(config, state.failures + 1);
      return relist(
        state,
        (action) =>
          gone
            ? problem("Gone", `Watch resourceVersion is too old: ${describeStatus(input.status)}`, action)
            : problem(
                "ErrorEvent",
                `Watch stream reported an error: ${describeStatus(input.status)}`,
                action,
              ),
        delay,
      );
    }
    case "UnknownEvent":
      return {
        state,
        emit: [
          problem(
            "UnknownEvent",
            `Ignoring an unsupported event type: ${JSON.stringify(input.type)}`,
            CONTINUE,
          ),
        ],
        action: CONTINUE,
      };
    case "StreamEnded": {
      const delay = state.received > 0 ? 0 : backoff(config, Math.max(1, state.failures));
      return { state: { ...state, received: 0 }, emit: [], action: resume(state, delay) };
    }
    case "StreamFailed": {
      if (input.failure.reason === "Gone") {
        return relist(
          state,
          (action) =>
            problem(
              "Gone",
              `Watch resourceVersion is too old: ${input.failure.message}`,
              action,
              input.failure,
            ),
          Math.max(0, config.reconnectBackoffMillis),
        );
      }
      const failures = state.failures + 1;
      const delay = notBefore(input.failure, state.received > 0 ? 0 : backoff(config, failures));
      const action = resume(state, delay);
      return {
        state: { ...state, failures, received: 0 },
        emit: [
          problem("WatchFailed", `Watch request failed: ${input.failure.message}`, action, input.failure),
        ],
        action,
      };
    }
    case "Inactive": {
      const action = resume(state, 0);
      return {
        state: { ...state, received: 0 },
        emit: [
          problem("Inactive", `No events or bookmarks for ${input.seconds}s: reconnecting the watch`, action),
        ],
        action,
      };
    }
  }
};
