/**
 * The resources and body type `KopfRunner`'s helpers use most: the example CRD's KopfExamples,
 * core Pods, Events, ConfigMaps and Namespaces, and CustomResourceDefinitions.
 */
import { type RawBody, Resource } from "@kopf/structs";

/** A Kubernetes object as the helpers answer it. */
export type Body = RawBody & {
  readonly status?: Record<string, any> | undefined;
  readonly spec?: Record<string, any> | undefined;
};

/** The example CRD's resource (`kopfexamples.v1.kopf.dev`), handy in tests of the examples. */
export const kopfExamples: Resource.Resource = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
  subresources: ["status"],
});

/** What {@link customResourceDefinition} varies; everything has the example CRD's value by default. */
export interface CrdOptions {
  readonly plural?: string | undefined;
  readonly kind?: string | undefined;
  readonly group?: string | undefined;
  readonly scope?: "Namespaced" | "Cluster" | undefined;
  /** The status subresource (default true). */
  readonly status?: boolean | undefined;
  readonly shortNames?: ReadonlyArray<string> | undefined;
  readonly categories?: ReadonlyArray<string> | undefined;
}

/**
 * A CRD with one served and stored version `v1`, an open schema (any fields kept) and, unless
 * `status: false`, the status subresource: the example CRD, or a variant of it for tests that need
 * other kinds, cluster scope or no status subresource.
 *
 * @example
 * ```ts
 * yield* Applying.apply([KopfRunner.customResourceDefinition({ plural: "kopfzoos", kind: "KopfZoo", scope: "Cluster" })])
 * ```
 */
export const customResourceDefinition = (options: CrdOptions = {}) => {
  const plural = options.plural ?? "kopfexamples";
  const kind = options.kind ?? "KopfExample";
  const group = options.group ?? "kopf.dev";
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      scope: options.scope ?? "Namespaced",
      group,
      names: {
        kind,
        plural,
        singular: kind.toLowerCase(),
        ...(options.shortNames === undefined ? {} : { shortNames: [...options.shortNames] }),
        ...(options.categories === undefined ? {} : { categories: [...options.categories] }),
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          ...(options.status === false ? {} : { subresources: { status: {} } }),
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
};

/**
 * The example CRD as an object (the essentials of examples/crd.yaml: namespaced KopfExamples
 * with a status subresource and an open schema), for tests that set up a cluster by hand.
 *
 * @example
 * ```ts
 * yield* Applying.apply([KopfRunner.kopfExampleCrd])
 * ```
 */
export const kopfExampleCrd = customResourceDefinition();

/** The core `events` resource (what `kopf.info()` and friends post). */
export const events: Resource.Resource = Resource.make({
  group: "",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
});

/** The core `pods` resource. */
export const pods: Resource.Resource = Resource.make({
  group: "",
  version: "v1",
  plural: "pods",
  kind: "Pod",
  namespaced: true,
  subresources: ["status"],
});

/** The core `configmaps` resource. */
export const configmaps: Resource.Resource = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});

/** The core `namespaces` resource (cluster-scoped). */
export const namespaces: Resource.Resource = Resource.make({
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
});

/** `customresourcedefinitions.apiextensions.k8s.io` (cluster-scoped). */
export const customResourceDefinitions: Resource.Resource = Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
});
