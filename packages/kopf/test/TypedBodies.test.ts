/**
 * Typed objects are accepted as they are — kubernetes-fluent-client model instances and
 * interfaces of one's own resources — by the hierarchies kit and event posting: these calls
 * compile without casts (the type-check of the tests is part of `npm test`) and behave as with
 * plain bodies.
 */
import { kind } from "kubernetes-fluent-client";
import { describe, expect, it } from "vitest";
import * as kopf from "../src/index.ts";

/** A custom resource as its operator's authors would type it: no index signature. */
interface Database {
  apiVersion: "example.com/v1";
  kind: "Database";
  metadata: { name: string; namespace: string; uid: string; labels?: Record<string, string> };
  spec: { size: number };
}

const owner: Database = {
  apiVersion: "example.com/v1",
  kind: "Database",
  metadata: { name: "db1", namespace: "ns1", uid: "uid-1", labels: { app: "db" } },
  spec: { size: 3 },
};

describe("typed objects", () => {
  it("adopts a kubernetes-fluent-client Pod for a typed owner", () => {
    const pod = new kind.Pod();
    pod.spec = { containers: [{ name: "main", image: "busybox" }] };
    kopf.adopt(pod, owner);
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        controller: true,
        blockOwnerDeletion: true,
        apiVersion: "example.com/v1",
        kind: "Database",
        name: "db1",
        uid: "uid-1",
      },
    ]);
    expect(pod.metadata?.generateName).toBe("db1-");
    expect(pod.metadata?.namespace).toBe("ns1");
    expect(pod.metadata?.labels).toEqual({ app: "db" });
  });

  it("builds references of typed objects", () => {
    const deployment = new kind.Deployment();
    deployment.apiVersion = "apps/v1";
    deployment.kind = "Deployment";
    deployment.metadata = { name: "web", namespace: "ns1", uid: "uid-2" };
    expect(kopf.buildObjectReference(deployment)).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "web",
      uid: "uid-2",
      namespace: "ns1",
    });
    const children = [new kind.Service(), [new kind.ConfigMap()]];
    kopf.appendOwnerReference(children, owner);
    kopf.removeOwnerReference(children, owner);
    expect(children.flat().map((c) => c.metadata?.ownerReferences)).toEqual([[], []]);
  });

  it("posts events about typed objects only inside a running operator", () => {
    // The same calls compile for model instances, own interfaces and nested lists of both;
    // outside an operator they fail with the facade's error, as for plain bodies.
    expect(() => kopf.info(owner, { reason: "Seen" })).toThrow(kopf.EventsError);
    expect(() => kopf.warn([new kind.Pod(), [owner]], { reason: "Seen" })).toThrow(kopf.EventsError);
    expect(() => kopf.event(new kind.Namespace(), { type: "Normal", reason: "Seen" })).toThrow(
      kopf.EventsError,
    );
  });
});
