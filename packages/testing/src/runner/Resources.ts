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

/**
 * The example CRD as an object (the essentials of examples/crd.yaml: namespaced KopfExamples
 * with a status subresource and an open schema), for tests that set up a cluster by hand.
 *
 * @example
 * ```ts
 * yield* emulator.apply([KopfRunner.kopfExampleCrd])
 * ```
 */
export const kopfExampleCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "kopfexamples.kopf.dev" },
  spec: {
    scope: "Namespaced",
    group: "kopf.dev",
    names: { kind: "KopfExample", plural: "kopfexamples", singular: "kopfexample" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
} as const;

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
