/**
 * Whether the API server filters lists and watches by a shard selector (Kubernetes v1.36+ with
 * its `ShardedListAndWatch` gate), so that a watcher of some hash ranges may ask it to, or must
 * filter on its side. A list sent with a selector tells it when the server echoes the applied
 * selector in `metadata.shardInfo` — which kube-apiserver v1.36 does for built-in types only
 * (custom resource lists are unstructured and carry no `shardInfo`). Without the echo, a probe
 * with a selector the server cannot accept tells: a server that filters rejects it
 * (`500`, `invalid shard selector: …`), a server without the feature ignores it and lists.
 * Decisions are pure; {@link detect} asks the server with at most two one-item lists.
 */
import type { KubeApi } from "@kopf/client";
import { type RawBody, type Resource, ShardRange } from "@kopf/structs";
import * as Effect from "effect/Effect";

/** Who filters by the shard selector. */
export type Filtering =
  | { readonly _tag: "ServerSide" }
  | { readonly _tag: "ClientSide"; readonly reason: string };

/** What the detection reads of a list: the echoed selector. */
export interface Echo {
  readonly metadata?: { readonly shardInfo?: { readonly selector: string } | undefined } | undefined;
}

/** A one-item list with a shard selector, as the detection sends it. */
export type ProbeList = (shardSelector: string) => Effect.Effect<Echo, ProbeFailure>;

/** A failed list as the detection reads it. */
export interface ProbeFailure {
  readonly message: string;
  readonly status?: number | undefined;
}

/** What kube-apiserver prefixes to every rejection of a shard selector. */
export const REJECTED = "invalid shard selector: ";

/**
 * A selector every server with the feature rejects (bounds must have 16 hex digits) and every
 * server without it ignores.
 */
export const PROBE = "shardRange(object.metadata.uid, '0x0', '0x1')";

/** Whether a failed list is the server's rejection of a shard selector. */
export const isRejection = (failure: ProbeFailure): boolean =>
  failure.status === 500 && failure.message.includes(REJECTED);

/**
 * Decides from the selector sent and the list received: the echo proves filtering; another
 * selector echoed means filtering by something else; no echo is undecided (`undefined`).
 *
 * @example
 * decide(selector, { items: [], metadata: { shardInfo: { selector } } }) // { _tag: "ServerSide" }
 */
export const decide = (sent: string, list: Echo): Filtering | undefined => {
  const echoed = list.metadata?.shardInfo?.selector;
  if (echoed === undefined) return undefined;
  if (echoed !== sent)
    return {
      _tag: "ClientSide",
      reason: `the server applied another shard selector than the one sent: ${JSON.stringify(echoed)}`,
    };
  return { _tag: "ServerSide" };
};

/**
 * Decides from the probe's outcome: rejected, the server parses (and so applies) selectors;
 * listed, it ignores them; any other failure leaves it undecided (`undefined`).
 *
 * @example
 * decideProbe({ _tag: "Failure", failure: { status: 500, message: "invalid shard selector: …" } }) // ServerSide
 */
export const decideProbe = (
  outcome: { readonly _tag: "Listed" } | { readonly _tag: "Failure"; readonly failure: ProbeFailure },
): Filtering | undefined => {
  if (outcome._tag === "Listed")
    return { _tag: "ClientSide", reason: "the server ignores shardSelector (no sharded list and watch)" };
  return isRejection(outcome.failure) ? { _tag: "ServerSide" } : undefined;
};

/**
 * Asks the server whether it filters by `selector` through `list` (one-item lists): the echo of
 * the selector, else the probe. A selector the server rejects, or a failure, means filtering on
 * the client (`decided: false` for failures worth asking again later).
 *
 * @example
 * ```ts
 * const { filtering } = yield* ShardedListing.detectWith((s) => api.list(pods, { limit: 1, shardSelector: s }), selector)
 * ```
 */
export const detectWith = (
  list: ProbeList,
  selector: string,
): Effect.Effect<{ readonly filtering: Filtering; readonly decided: boolean }> =>
  Effect.gen(function* () {
    const undecided = (message: string) => ({
      filtering: { _tag: "ClientSide", reason: `the sharded list failed: ${message}` } as Filtering,
      decided: false,
    });
    const first = yield* Effect.result(list(selector));
    if (first._tag === "Failure")
      return isRejection(first.failure)
        ? {
            filtering: {
              _tag: "ClientSide",
              reason: `the server rejects the selector: ${first.failure.message}`,
            },
            decided: true,
          }
        : undecided(first.failure.message);
    const echoed = decide(selector, first.success);
    if (echoed !== undefined) return { filtering: echoed, decided: true };
    const probe = yield* Effect.result(list(PROBE));
    const probed = decideProbe(
      probe._tag === "Success" ? { _tag: "Listed" } : { _tag: "Failure", failure: probe.failure },
    );
    if (probed !== undefined) return { filtering: probed, decided: true };
    return undecided(probe._tag === "Failure" ? probe.failure.message : "no answer");
  });

/**
 * {@link detectWith} over the `KubeApi` for `resource` in `namespace` (`null`: cluster-wide).
 *
 * @example
 * ```ts
 * const filtering = yield* ShardedListing.detect(api, resource, ShardRange.selector(ranges))
 * ```
 */
export const detect = (
  api: KubeApi["Service"],
  resource: Resource.Resource,
  selector: string,
  namespace: string | null = null,
): Effect.Effect<Filtering> =>
  Effect.map(
    detectWith((shardSelector) => api.list(resource, { namespace, limit: 1, shardSelector }), selector),
    (detected) => detected.filtering,
  );

/**
 * Whether an object's `metadata.uid` hashes into the ranges (the client-side filter).
 *
 * @example
 * within([ShardRange.WHOLE])({ metadata: { uid: "…" } }) // true
 */
export const within =
  (ranges: ReadonlyArray<ShardRange.ShardRange>) =>
  (object: RawBody): boolean =>
    ShardRange.contains(ranges, ShardRange.fnv1a64(object.metadata?.uid ?? ""));

/**
 * What a watcher of `shards` keeps (every object in them) and the selector it sends once the
 * server is known to apply it (`""` for no ranges: nothing to ask for).
 *
 * @example
 * filterOf([ShardRange.WHOLE]).selector // "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"
 */
export const filterOf = (shards: ReadonlyArray<ShardRange.ShardRange>) => ({
  keep: within(shards),
  selector: ShardRange.selector(shards),
});

/**
 * The decision in words, for the watcher's log.
 *
 * @example
 * explain({ _tag: "ServerSide" }) // "the server filters by the shard ranges"
 */
export const explain = (filtering: Filtering): string =>
  filtering._tag === "ServerSide"
    ? "the server filters by the shard ranges"
    : `filtering by the shard ranges here: ${filtering.reason}`;
