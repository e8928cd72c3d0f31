/**
 * One operator's presence in one peering object (docs/behaviour/peering.md#presence-records, docs/behaviour/peering.md#reactions): the keep-alive that keeps its
 * record in Kopf's format alive in the object's `status` (and removes it on exit), and the
 * observation of the object that judges the other records — pausing in favour of a higher
 * priority, pausing everyone on a same-priority conflict, resuming once the blockers are gone or
 * expired, cleaning dead records. `Peering` runs one presence per peering resource × served
 * namespace (or cluster-wide) and combines their verdicts.
 */
import { type ApiError, KubeApi } from "@kopf/client";
import { IsoTime, type RawBody, type Resource } from "@kopf/structs";
import { Watcher } from "@kopf/watcher";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Random from "effect/Random";
import * as Stream from "effect/Stream";
import * as Peers from "./Peers.ts";

/** A peering object's resource and namespace (`null` cluster-wide). */
export interface Target {
  readonly resource: Resource.Resource;
  readonly namespace: string | null;
}

/** Who is present, and how. */
export interface PresenceOptions {
  readonly identity: string;
  /** The peering object's name (`settings.peering.name`). */
  readonly name: string;
  readonly priority: number;
  /** Seconds the record stays valid. */
  readonly lifetime: number;
  readonly stealth: boolean;
  /** `--peering NAME`: paused until the object shows no conflict (e.g. while it is missing). */
  readonly mandatory: boolean;
}

/**
 * A key naming a target, unique per resource and namespace.
 *
 * @example
 * ```ts
 * Presence.keyOf({ resource, namespace: "ns1" }) // "kopfpeerings.v1.kopf.dev@ns1"
 * ```
 */
export const keyOf = (target: Target): string =>
  `${target.resource.plural}.${target.resource.version}.${target.resource.group}@${target.namespace ?? ""}`;

const where = (target: Target) => (target.namespace === null ? "cluster-wide" : `in '${target.namespace}'`);

/**
 * Writes (or, with lifetime 0, removes) a presence record; answers whether the object exists.
 *
 * @example
 * ```ts
 * yield* Presence.touch(target, { identity, name: "default", priority: 0, lifetime: 60, stealth: false })
 * ```
 */
export const touch = (
  target: Target,
  options: Omit<PresenceOptions, "mandatory">,
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

/**
 * Keeps the record alive until interrupted, then removes it.
 *
 * @example
 * ```ts
 * yield* Effect.forkScoped(Presence.keepAlive(target, options))
 * ```
 */
export const keepAlive = (target: Target, options: PresenceOptions): Effect.Effect<void, never, KubeApi> =>
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

/**
 * Watches one peering object until interrupted and reports whether it wants this operator paused
 * (first at once: `true` if mandatory, else `false`; then on every event of the object).
 *
 * @example
 * ```ts
 * yield* Presence.observe(target, options, (paused) => Effect.log(paused ? "paused" : "running"))
 * ```
 */
export const observe = (
  target: Target,
  options: PresenceOptions,
  report: (conflict: boolean) => Effect.Effect<void>,
): Effect.Effect<void, never, KubeApi> =>
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
