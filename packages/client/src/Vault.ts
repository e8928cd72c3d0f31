/**
 * The credentials vault (Kopf's `Vault`, docs/behaviour/operator.md#the-credentials-vault): the connection infos currently believed
 * valid, keyed by the login handler that produced them, shared by every API call.
 *
 * - Each call takes one item of the highest priority, chosen at random among equals.
 * - A 401 invalidates the item used; the call is retried with another one. Invalidating the last
 *   item makes the vault "not ready": every caller blocks until re-authentication (the `login`
 *   effect given at construction) has repopulated it.
 * - Credentials equal to one of the last 3 invalidated for the same key (expiration aside) are not
 *   accepted again, so a login that keeps returning rejected credentials cannot loop forever.
 * - Expired items (by `expiration`, on `Clock`) are dropped before use; when all have expired,
 *   re-authentication runs as well (expired ones are not remembered as invalid).
 */
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Random from "effect/Random";
import * as ConnectionInfo from "./ConnectionInfo.ts";
import type { KubeApiError } from "./KubeApiError.ts";
import { LoginError, OUT_OF_CREDENTIALS } from "./LoginError.ts";

/** One credential as handed out by the vault; `id` tells re-added equal items apart. @category models */
export interface VaultItem {
  readonly key: string;
  readonly id: number;
  readonly info: ConnectionInfo.ConnectionInfo;
}

/** Credentials as produced by a login: keyed by the login handler id. @category models */
export type Credentials =
  | Readonly<Record<string, ConnectionInfo.ConnectionInfo>>
  | ReadonlyMap<string, ConnectionInfo.ConnectionInfo>;

/** How the vault is built. @category models */
export interface VaultOptions {
  /** Credentials to start with (the vault is ready at once when non-empty and unexpired). */
  readonly initial?: Credentials | undefined;
  /**
   * The login activity: run whenever the vault runs dry (initially empty, all invalidated, all
   * expired). Failures are logged and count as "no credentials".
   */
  readonly login?: Effect.Effect<Credentials, LoginError> | undefined;
}

/**
 * The vault service.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { CredentialsVault } from "@kopf/client"
 * const program = Effect.gen(function* () {
 *   const vault = yield* CredentialsVault
 *   return yield* vault.withCredentials((item) => Effect.succeed(item.info.server))
 * })
 * ```
 * @category services
 */
export class CredentialsVault extends Context.Service<
  CredentialsVault,
  {
    /** One item of the top priority; blocks while re-authenticating; fails when none are left. */
    readonly select: Effect.Effect<VaultItem, LoginError>;
    /** Drop an item that the server rejected; blocks for re-authentication if it was the last. */
    readonly invalidate: (item: VaultItem) => Effect.Effect<void, LoginError>;
    /** Add credentials (e.g. from login handlers run elsewhere) and wake up blocked callers. */
    readonly populate: (credentials: Credentials) => Effect.Effect<void>;
    /** The current items, unfiltered (for diagnostics and for exporting credentials). */
    readonly items: Effect.Effect<ReadonlyArray<VaultItem>>;
    /**
     * Run `f` with credentials; on `Unauthorized` invalidate them and run it again with the next
     * ones (Kopf's `@authenticated`). Other errors pass through.
     */
    readonly withCredentials: <A, E, R>(
      f: (item: VaultItem) => Effect.Effect<A, E | KubeApiError, R>,
    ) => Effect.Effect<A, E | KubeApiError | LoginError, R>;
  }
>()("@kopf/client/CredentialsVault") {
  /** A vault whose login activity is given; scoped (the login fiber lives in the layer's scope). */
  static readonly layer = (options: VaultOptions): Layer.Layer<CredentialsVault> =>
    Layer.effect(CredentialsVault, make(options));
  /** A vault with fixed credentials and no re-authentication (tests, embedded use). */
  static readonly layerStatic = (credentials: Credentials): Layer.Layer<CredentialsVault> =>
    Layer.effect(CredentialsVault, make({ initial: credentials }));
}

const isUnauthorized = (error: unknown): error is KubeApiError =>
  typeof error === "object" &&
  error !== null &&
  (error as { _tag?: unknown })._tag === "KubeApiError" &&
  (error as { reason?: unknown }).reason === "Unauthorized";

const entriesOf = (
  credentials: Credentials,
): ReadonlyArray<readonly [string, ConnectionInfo.ConnectionInfo]> =>
  credentials instanceof Map
    ? [...(credentials as ReadonlyMap<string, ConnectionInfo.ConnectionInfo>).entries()]
    : Object.entries(credentials as Readonly<Record<string, ConnectionInfo.ConnectionInfo>>);

/**
 * How many credentials one call tries before it gives up with the last 401 (Kopf has no bound:
 * a login handing out fresh but always rejected tokens would loop without end).
 */
export const MAX_CREDENTIAL_ATTEMPTS = 10;

/** How many invalidated credentials per key are remembered and refused. */
export const INVALID_HISTORY_SIZE = 3;

/**
 * Build a vault. Requires a `Scope`: re-authentication runs in a fiber of that scope, so that
 * callers being interrupted never leave the others waiting forever.
 */
export const make = Effect.fnUntraced(function* (options: VaultOptions) {
  const scope = yield* Effect.scope;
  const current = new Map<string, VaultItem>();
  const invalid = new Map<string, Array<ConnectionInfo.ConnectionInfo>>();
  let nextId = 0;
  // Present while re-authenticating: callers wait on it; resolved when the login has finished.
  let gate: Deferred.Deferred<void> | undefined;
  // Why the last login failed, for the error callers get when nothing is left.
  let lastFailure: LoginError | undefined;
  // Kopf says "Initial authentication" for the first login and "Re-authentication" afterwards.
  let loginsStarted = 0;

  const add = (credentials: Credentials): void => {
    for (const [key, info] of entriesOf(credentials)) {
      if ((invalid.get(key) ?? []).some((old) => ConnectionInfo.sameIdentity(old, info))) continue;
      const existing = current.get(key);
      if (existing !== undefined && ConnectionInfo.equals(existing.info, info)) continue;
      current.set(key, { key, id: nextId++, info });
    }
  };

  const populate = (credentials: Credentials): Effect.Effect<void> =>
    Effect.sync(() => {
      add(credentials);
      const waiting = gate;
      gate = undefined;
      if (waiting !== undefined) Deferred.doneUnsafe(waiting, Exit.void);
    });

  /** Start re-authentication unless it is running; give the gate to wait on, if any. */
  const reauthenticate: Effect.Effect<Deferred.Deferred<void> | undefined> = Effect.suspend(() => {
    if (gate !== undefined) return Effect.succeed(gate);
    if (options.login === undefined) return Effect.succeed(undefined);
    const opened = Deferred.makeUnsafe<void>();
    gate = opened;
    const login = options.login;
    const title = loginsStarted++ === 0 ? "Initial authentication" : "Re-authentication";
    return Effect.logInfo(`${title} has been initiated.`).pipe(
      Effect.andThen(login),
      Effect.tap(() =>
        Effect.sync(() => {
          lastFailure = undefined;
        }),
      ),
      Effect.catchCause((cause) => {
        const failure = cause.reasons.find((reason) => reason._tag === "Fail")?.error;
        lastFailure = failure instanceof LoginError ? failure : undefined;
        // An expected failure is one line naming the problem; only a defect carries its trace.
        const logged =
          lastFailure !== undefined
            ? Effect.logError(`${title} has failed: ${lastFailure.message}`)
            : Effect.logError(`${title} has failed.`, cause);
        return logged.pipe(Effect.as(undefined));
      }),
      Effect.flatMap((credentials) =>
        Effect.suspend(() =>
          credentials === undefined
            ? Effect.void
            : entriesOf(credentials).length === 0
              ? Effect.logWarning(`${title} has failed: no credentials were retrieved.`)
              : Effect.logInfo(`${title} has finished.`),
        ).pipe(Effect.andThen(populate(credentials ?? {}))),
      ),
      Effect.onInterrupt(() => populate({})),
      Effect.forkIn(scope),
      Effect.as(opened),
    );
  });

  /** Out of credentials; the last login failure, if any, is named (e.g. the broken kubeconfig). */
  const outOfCredentials = () =>
    new LoginError({
      reason: "OutOfCredentials",
      message:
        lastFailure === undefined
          ? OUT_OF_CREDENTIALS
          : `${OUT_OF_CREDENTIALS} The last login failed: ${lastFailure.message}`,
      ...(lastFailure === undefined ? {} : { cause: lastFailure }),
    });

  /** Drop expired items; say whether any were dropped. */
  const expire = (now: number): boolean => {
    let expired = false;
    for (const [key, item] of current) {
      if (ConnectionInfo.isExpired(item.info, now)) {
        current.delete(key);
        expired = true;
      }
    }
    return expired;
  };

  const pick = Effect.suspend(() => {
    let top = Number.NEGATIVE_INFINITY;
    for (const item of current.values()) top = Math.max(top, item.info.priority);
    const candidates = [...current.values()].filter((item) => item.info.priority === top);
    // One candidate (the usual case) needs no draw: every request picks its credentials.
    if (candidates.length === 1) return Effect.succeed(candidates[0]!);
    return Random.nextIntBetween(0, candidates.length, { halfOpen: true }).pipe(
      Effect.map((index) => candidates[index]!),
    );
  });

  const waitingSelect: Effect.Effect<VaultItem, LoginError> = Effect.gen(function* () {
    let reauthenticated = false;
    while (true) {
      if (gate !== undefined) {
        yield* Deferred.await(gate);
        reauthenticated = true;
        continue;
      }
      expire(yield* Clock.currentTimeMillis);
      if (current.size > 0) return yield* pick;
      if (reauthenticated) return yield* outOfCredentials();
      const waiting = yield* reauthenticate;
      if (waiting === undefined) return yield* outOfCredentials();
    }
  });

  // The usual case — no login under way, valid credentials at hand — is answered at once; the
  // rest (waiting for a login, starting one) goes the long way.
  const select: Effect.Effect<VaultItem, LoginError> = Effect.clockWith((clock) => {
    if (gate !== undefined) return waitingSelect;
    expire(clock.currentTimeMillisUnsafe());
    if (current.size === 1) return Effect.succeed(current.values().next().value as VaultItem);
    return current.size > 0 ? pick : waitingSelect;
  });

  const invalidate = (item: VaultItem): Effect.Effect<void, LoginError> =>
    Effect.gen(function* () {
      if (current.get(item.key)?.id === item.id) {
        current.delete(item.key);
        const history = invalid.get(item.key) ?? [];
        invalid.set(item.key, [...history, item.info].slice(-INVALID_HISTORY_SIZE));
      }
      if (current.size > 0) return;
      const waiting = yield* reauthenticate;
      if (waiting !== undefined) yield* Deferred.await(waiting);
      if (current.size === 0) return yield* outOfCredentials();
    });

  const withCredentials = <A, E, R>(
    f: (item: VaultItem) => Effect.Effect<A, E | KubeApiError, R>,
  ): Effect.Effect<A, E | KubeApiError | LoginError, R> => {
    const attempt = (count: number): Effect.Effect<A, E | KubeApiError | LoginError, R> =>
      Effect.flatMap(select, (item) =>
        Effect.catchIf(f(item), isUnauthorized, (error) =>
          Effect.gen(function* () {
            yield* Effect.logWarning(`Credentials were rejected: ${ConnectionInfo.describe(item.info)}`);
            yield* invalidate(item);
            // A login that keeps producing new credentials that are all rejected would spin forever.
            if (count >= MAX_CREDENTIAL_ATTEMPTS) return yield* Effect.fail(error);
            return yield* attempt(count + 1);
          }),
        ),
      );
    return attempt(1);
  };

  if (options.initial !== undefined) add(options.initial);
  const now = yield* Clock.currentTimeMillis;
  expire(now);
  if (current.size === 0 && options.login !== undefined) yield* reauthenticate;

  return CredentialsVault.of({
    select,
    invalidate,
    populate,
    items: Effect.sync(() => [...current.values()]),
    withCredentials,
  });
});
