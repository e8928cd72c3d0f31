/**
 * Whether the API server filters lists and watches by a shard selector (Kubernetes v1.36+ with
 * its `ShardedListAndWatch` gate): a list sent with a selector comes back with the applied
 * selector echoed in `metadata.shardInfo`; a server without the feature ignores the parameter
 * and sends everything, so the caller must filter on its side. The decision is pure; `detect`
 * asks the server with a one-item list.
 */
import type { KubeApi, ListBody } from "@kopf/client";
import type { Resource } from "@kopf/structs";
import { Effect } from "effect";

/** Who filters by the shard selector. */
export type Filtering =
  | { readonly _tag: "ServerSide" }
  | { readonly _tag: "ClientSide"; readonly reason: string };

/**
 * Decides from the selector sent and the list received.
 *
 * @example
 * decide(selector, { items: [], metadata: { shardInfo: { selector } } }) // { _tag: "ServerSide" }
 */
export const decide = (sent: string, list: ListBody): Filtering => {
  const echoed = list.metadata?.shardInfo?.selector;
  if (echoed === undefined)
    return { _tag: "ClientSide", reason: "the server ignored the shard selector (no shardInfo in the list)" };
  if (echoed !== sent)
    return {
      _tag: "ClientSide",
      reason: `the server applied another shard selector than the one sent: ${JSON.stringify(echoed)}`,
    };
  return { _tag: "ServerSide" };
};

/**
 * Asks the server whether it filters `resource` by `selector` (a list of at most one item);
 * a failing request (e.g. a server that rejects the selector) means filtering on the client.
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
  api.list(resource, { namespace, limit: 1, shardSelector: selector }).pipe(
    Effect.map((list) => decide(selector, list)),
    Effect.catch((error) =>
      Effect.succeed<Filtering>({ _tag: "ClientSide", reason: `the sharded list failed: ${error.message}` }),
    ),
  );
