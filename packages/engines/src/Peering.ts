/**
 * Peering (Kopf's `peering` engine, spec §8): operators serving the same resources see each other
 * through `KopfPeering` (namespaced) or `ClusterKopfPeering` objects in Kopf's format, so Python
 * Kopf peers and ours interoperate. Each operator keeps its presence record alive in the
 * peering object's status and watches it: a live peer with a higher priority pauses this
 * operator; one with the same priority pauses everybody (a conflict, with a warning); once the
 * blocking peers are gone or expired, it resumes. Dead records are cleaned; on exit the own
 * record is removed. Both API groups (`kopf.dev`, legacy `zalando.org`) are used when present.
 *
 * Pausing is reported through `onPause`; `Operating` turns it into the runtime's `paused` seam
 * (no watching) and the daemons engine's pause. `freeze`/`resume` are `kopf freeze`/`kopf resume`.
 */
import { type ApiError, KubeApi } from "@kopf/client";
import { IsoTime, type RawBody, Resource } from "@kopf/structs";
import { Watcher } from "@kopf/watcher";
import { Data, Effect, Fiber, Random, Stream } from "effect";
import * as Peers from "./Peers.ts";

/** Why peering could not be done. */
export class PeeringError extends Data.TaggedError("PeeringError")<{
  readonly reason: "CrdMissing" | "NoTargets" | "Api";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** How this operator peers. */
export interface PeeringOptions {
  readonly identity: string;
  /** The peering object's name (`settings.peering.name`). */
  readonly name: string;
  readonly priority: number;
  /** Seconds the record stays valid. */
  readonly lifetime: number;
  readonly stealth: boolean;
  /** `--peering NAME`: paused while the CRD or the object is missing. */
  readonly mandatory: boolean;
  readonly clusterwide: boolean;
  /** The namespaces whose `KopfPeering` objects are used (namespaced mode). */
  readonly namespaces: ReadonlyArray<string>;
}

/** A peering object's resource and namespace (`null` cluster-wide). */
export interface Target {
  readonly resource: Resource.Resource;
  readonly namespace: string | null;
}

const GROUPS = ["kopf.dev", "zalando.org"];

/** Seconds between looks for peering CRDs that did not exist at start. */
export const REDISCOVERY_SECONDS = 30;

/**
 * The peering resources served by the cluster (both groups when both exist).
 *
 * @example
 * ```ts
 * const resources = yield* Peering.resources(true) // [clusterkopfpeerings.v1.kopf.dev]
 * ```
 */
export const resources = (
  clusterwide: boolean,
): Effect.Effect<ReadonlyArray<Resource.Resource>, ApiError, KubeApi> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const plural = clusterwide ? "clusterkopfpeerings" : "kopfpeerings";
    const discovered = yield* api.discover({ groups: GROUPS });
    const found: Array<Resource.Resource> = [];
    for (const gv of discovered) {
      const main = gv.resources.find((r) => r.name === plural);
      if (main === undefined || !gv.preferred) continue;
      found.push(
        Resource.make({
          group: gv.group,
          version: gv.version,
          plural,
          kind: main.kind,
          namespaced: main.namespaced,
          subresources: gv.resources.some((r) => r.name === `${plural}/status`) ? ["status"] : [],
          verbs: main.verbs,
          preferred: true,
        }),
      );
    }
    return found;
  });

/** The peering objects to use: each resource in each namespace (or cluster-wide). */
export const targets = (
  found: ReadonlyArray<Resource.Resource>,
  options: Pick<PeeringOptions, "clusterwide" | "namespaces">,
) =>
  found.flatMap(
    (resource): ReadonlyArray<Target> =>
      options.clusterwide
        ? [{ resource, namespace: null }]
        : options.namespaces.map((namespace) => ({ resource, namespace })),
  );

const where = (target: Target) => (target.namespace === null ? "cluster-wide" : `in '${target.namespace}'`);

/**
 * Writes (or, with lifetime 0, removes) a presence record; answers whether the object exists.
 *
 * @example
 * ```ts
 * yield* Peering.touch(target, { identity, name: "default", priority: 0, lifetime: 60, stealth: false })
 * ```
 */
export const touch = (
  target: Target,
  options: Pick<PeeringOptions, "identity" | "name" | "priority" | "lifetime" | "stealth">,
  lifetime: number = options.lifetime,
): Effect.Effect<boolean, ApiError, KubeApi> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const now = yield* IsoTime.now;
    const peer: Peers.Peer = { id: options.identity, priority: options.priority, lifetime, lastseen: now };
    const record = Peers.isDead(peer, now) ? null : Peers.toRecord(peer);
    const found = yield* api
      .patch(
        target.resource,
        {
          name: options.name,
          namespace: target.namespace,
          ...(target.resource.subresources.includes("status") ? { subresource: "status" } : {}),
        },
        { type: "merge", body: { status: { [options.identity]: record } } },
      )
      .pipe(
        Effect.as(true),
        Effect.catchIf(
          (error) => error._tag === "KubeApiError" && error.reason === "NotFound",
          () => Effect.succeed(false),
        ),
      );
    if (!options.stealth || !found) {
      yield* Effect.logDebug(
        `Keep-alive in '${options.name}' ${where(target)}: ${found ? "ok" : "not found"}.`,
      );
    }
    return found;
  });

const clean = (target: Target, name: string, dead: ReadonlyArray<Peers.Peer>) =>
  Effect.flatMap(KubeApi, (api) =>
    api.patch(
      target.resource,
      {
        name,
        namespace: target.namespace,
        ...(target.resource.subresources.includes("status") ? { subresource: "status" } : {}),
      },
      { type: "merge", body: { status: Object.fromEntries(dead.map((peer) => [peer.id, null])) } },
    ),
  ).pipe(Effect.ignore);

/** Keeps the record alive until interrupted, then removes it. */
const keepAlive = (target: Target, options: PeeringOptions) =>
  Effect.gen(function* () {
    for (;;) {
      yield* touch(target, options).pipe(
        Effect.catch((error) =>
          Effect.logWarning(`Keep-alive in '${options.name}' ${where(target)} failed: ${error.message}`),
        ),
      );
      const jitter = 5 + Math.floor((yield* Random.next) * 6);
      yield* Effect.sleep(`${Peers.keepAliveInterval(options.lifetime, jitter) * 1000} millis`);
    }
  }).pipe(
    Effect.ensuring(
      touch(target, options, 0).pipe(
        Effect.catch((error) =>
          Effect.logError(`Couldn't remove self from the peering. Ignoring. ${error.message}`),
        ),
        Effect.uninterruptible,
      ),
    ),
  );

const list = (peers: ReadonlyArray<Peers.Peer>) => `[${peers.map(Peers.describe).join(", ")}]`;

/** Watches one peering object and reports whether it wants this operator paused. */
const observe = (
  target: Target,
  options: PeeringOptions,
  report: (conflict: boolean) => Effect.Effect<void>,
) =>
  Effect.scoped(
    Effect.gen(function* () {
      let conflict = options.mandatory;
      let waiter: Fiber.Fiber<void> | undefined;
      const judge = (body: RawBody) =>
        Effect.gen(function* () {
          if (waiter !== undefined) yield* Fiber.interrupt(waiter);
          const now = yield* IsoTime.now;
          const peers = Peers.fromStatus(body.status, now);
          const judged = Peers.judge({ peers, identity: options.identity, priority: options.priority, now });
          if (judged.dead.length > 0) yield* clean(target, options.name, judged.dead);
          const verdict = judged.verdict;
          if (verdict._tag === "Pause") {
            if (!conflict)
              yield* Effect.logInfo(`Pausing operations in favour of ${list(verdict.blockers)}.`);
            conflict = true;
          } else if (verdict._tag === "Conflict") {
            yield* Effect.logWarning(
              `Possibly conflicting operators with the same priority: ${list(verdict.blockers)}.`,
            );
            if (!conflict) yield* Effect.logWarning(`Pausing all operators, including self: ${list(peers)}`);
            conflict = true;
          } else {
            if (conflict) {
              yield* Effect.logInfo(
                "Resuming operations after the pause. Conflicting operators with the same priority are gone.",
              );
            }
            conflict = false;
          }
          yield* report(conflict);
          // Re-evaluate when the earliest blocking peer expires, unless a new event comes first.
          if (judged.wake !== undefined) {
            waiter = yield* Effect.forkScoped(
              Effect.andThen(
                Effect.sleep(`${Math.max(0, judged.wake) * 1000} millis`),
                Effect.ignore(touch(target, options)),
              ),
            );
          }
        });
      yield* report(conflict);
      yield* Stream.runForEach(Watcher.stream(target.resource, target.namespace), (item) =>
        item._tag === "Event" && item.type !== "DELETED" && item.object.metadata?.name === options.name
          ? judge(item.object)
          : Effect.void,
      );
    }),
  );

/**
 * Peers until interrupted: keeps the own records alive in every target and reports whether the
 * operator must be paused (`true` while any target wants it, or while a mandatory peering has
 * no peering resource at all). Without a peering CRD and not mandatory, it runs standalone; in
 * both cases it looks for the CRDs again every {@link REDISCOVERY_SECONDS} and starts peering
 * once they appear.
 *
 * @example
 * ```ts
 * yield* Effect.forkScoped(Peering.run(options, (paused) => SubscriptionRef.set(pausedRef, paused)))
 * ```
 */
export const run = (
  options: PeeringOptions,
  onPause: (paused: boolean) => Effect.Effect<void>,
): Effect.Effect<void, never, KubeApi> =>
  Effect.gen(function* () {
    const discover = resources(options.clusterwide).pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`Cannot discover the peering resources: ${error.message}`), []),
      ),
    );
    let all = targets(yield* discover, options);
    if (all.length === 0) {
      if (options.mandatory) {
        yield* Effect.logWarning("The peering CRD is missing: the operator is paused until it appears.");
        yield* onPause(true);
      } else {
        yield* Effect.logInfo("Default peering object is not found, falling back to the standalone mode.");
      }
    }
    // The CRDs may be applied later: look for them again now and then.
    while (all.length === 0) {
      yield* Effect.sleep(`${REDISCOVERY_SECONDS * 1000} millis`);
      all = targets(yield* discover, options);
    }
    const wants = new Map<string, boolean>();
    let paused: boolean | undefined;
    const report = (key: string) => (conflict: boolean) =>
      Effect.suspend(() => {
        wants.set(key, conflict);
        const now = [...wants.values()].some(Boolean);
        if (now === paused) return Effect.void;
        paused = now;
        return onPause(now);
      });
    yield* Effect.forEach(
      all,
      (target, i) =>
        Effect.all([keepAlive(target, options), observe(target, options, report(String(i)))], {
          concurrency: "unbounded",
          discard: true,
        }),
      { concurrency: "unbounded", discard: true },
    );
  });

/** Options of {@link freeze} and {@link resume} (Kopf's `kopf freeze`/`kopf resume`). */
export interface FreezeOptions {
  /** A manual identity (`user@host` unless `--id`). */
  readonly identity: string;
  /** `-P/--peering NAME` (required). */
  readonly name: string;
  readonly clusterwide: boolean;
  readonly namespaces: ReadonlyArray<string>;
  /** Default 100 (666 with `--dev`). */
  readonly priority?: number | undefined;
  /** Seconds the freeze lasts (required by `freeze`). */
  readonly lifetime: number;
}

const command = (options: FreezeOptions, lifetime: number) =>
  Effect.gen(function* () {
    const found = yield* resources(options.clusterwide).pipe(
      Effect.mapError((error) => new PeeringError({ reason: "Api", message: error.message, cause: error })),
    );
    const all = targets(found, options);
    if (all.length === 0) {
      return yield* new PeeringError({
        reason: found.length === 0 ? "CrdMissing" : "NoTargets",
        message:
          found.length === 0
            ? `Cannot find the peering resource (${options.clusterwide ? "clusterkopfpeerings" : "kopfpeerings"}).`
            : "No namespaces to freeze or resume: pass --namespace or --all-namespaces.",
      });
    }
    const peer = {
      identity: options.identity,
      name: options.name,
      priority: options.priority ?? 100,
      lifetime,
      stealth: false,
    };
    yield* Effect.forEach(all, (target) => touch(target, peer, lifetime), {
      concurrency: "unbounded",
      discard: true,
    }).pipe(
      Effect.mapError((error) => new PeeringError({ reason: "Api", message: error.message, cause: error })),
    );
  });

/**
 * `kopf freeze`: writes a presence record with the given priority (default 100) and lifetime
 * into the peering objects, pausing operators with lower or equal priorities until it expires.
 *
 * @example
 * ```ts
 * yield* Peering.freeze({ identity: "me@box", name: "default", clusterwide: true, namespaces: [], lifetime: 600 })
 * ```
 */
export const freeze = (options: FreezeOptions): Effect.Effect<void, PeeringError, KubeApi> =>
  command(options, options.lifetime);

/**
 * `kopf resume`: removes the freeze record of the identity.
 *
 * @example
 * ```ts
 * yield* Peering.resume({ identity: "me@box", name: "default", clusterwide: true, namespaces: [], lifetime: 0 })
 * ```
 */
export const resume = (
  options: Omit<FreezeOptions, "lifetime">,
): Effect.Effect<void, PeeringError, KubeApi> => command({ ...options, lifetime: 0 }, 0);
