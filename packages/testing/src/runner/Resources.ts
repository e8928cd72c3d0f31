/**
 * The resources and body type `KopfRunner`'s helpers use most: the example CRD's KopfExamples,
 * core Pods and Events.
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
