/**
 * The peering CRDs (docs/behaviour/peering.md#the-peering-resources), as shipped in `crds/peering.yaml` for `kubectl apply -f`, and
 * as values for applying them through the API (`apply`): `ClusterKopfPeering` (cluster-scoped)
 * and `KopfPeering` (namespaced) in `kopf.dev/v1`, with a status subresource-free schema whose
 * `status` preserves unknown fields (the presence records), exactly as Kopf ships them.
 */
import { type ApiError, KubeApi } from "@kopf/client";
import type { RawBody } from "@kopf/structs";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";

const crd = (kind: string, plural: string, scope: "Cluster" | "Namespaced"): RawBody => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.kopf.dev` },
  spec: {
    scope,
    group: "kopf.dev",
    names: { kind, plural, singular: kind.toLowerCase() },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
});

/** The two CRDs, in the order of `crds/peering.yaml`. */
export const definitions: ReadonlyArray<RawBody> = [
  crd("ClusterKopfPeering", "clusterkopfpeerings", "Cluster"),
  crd("KopfPeering", "kopfpeerings", "Namespaced"),
];

const CRDS = Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
});

/**
 * Creates the CRDs that do not exist yet (existing ones are left as they are).
 *
 * @example
 * ```ts
 * yield* PeeringCrds.apply // then create the peering objects, e.g. ClusterKopfPeering "default"
 * ```
 */
export const apply: Effect.Effect<void, ApiError, KubeApi> = Effect.gen(function* () {
  const api = yield* KubeApi;
  for (const definition of definitions) {
    yield* api.create(CRDS, definition).pipe(
      Effect.asVoid,
      Effect.catchIf(
        (error) => error._tag === "KubeApiError" && error.reason === "Conflict",
        () => Effect.void,
      ),
    );
  }
});

/**
 * A peering object to create (`ClusterKopfPeering` without a namespace, else `KopfPeering`).
 *
 * @example
 * ```ts
 * PeeringCrds.peeringObject("default", null) // { apiVersion: "kopf.dev/v1", kind: "ClusterKopfPeering", metadata: { name: "default" } }
 * ```
 */
export const peeringObject = (name: string, namespace: string | null): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: namespace === null ? "ClusterKopfPeering" : "KopfPeering",
  metadata: namespace === null ? { name } : { name, namespace },
});
