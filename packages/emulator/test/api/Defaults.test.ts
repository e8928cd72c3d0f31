/** Defaulting of built-in types over `handle`: container ports of pods and deployment templates get protocol TCP. */
import { describe, expect, it } from "vitest";
import { run, send } from "./Harness.ts";

const container = (ports: Array<Record<string, unknown>>) => ({ name: "c", image: "nginx:1", ports });

describe("container port defaults", () => {
  it.each([
    ["no protocol", [{ containerPort: 80 }], [{ containerPort: 80, protocol: "TCP" }]],
    ["an empty protocol", [{ containerPort: 80, protocol: "" }], [{ containerPort: 80, protocol: "TCP" }]],
    ["UDP kept", [{ containerPort: 53, protocol: "UDP" }], [{ containerPort: 53, protocol: "UDP" }]],
    [
      "each port on its own",
      [
        { containerPort: 53, protocol: "UDP" },
        { name: "web", containerPort: 80 },
      ],
      [
        { containerPort: 53, protocol: "UDP" },
        { name: "web", containerPort: 80, protocol: "TCP" },
      ],
    ],
  ])("a pod's containers and init containers: %s", async (_, ports, expected) => {
    const r = await run(
      send("POST", "/api/v1/namespaces/default/pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: { initContainers: [container(ports)], containers: [container(ports)] },
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.spec.containers[0].ports).toEqual(expected);
    expect(r.body.spec.initContainers[0].ports).toEqual(expected);
    expect(r.body.spec.initContainers[0].terminationMessagePolicy).toBe("File");
  });

  it("a deployment's pod template", async () => {
    const r = await run(
      send("POST", "/apis/apps/v1/namespaces/default/deployments", {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "d" },
        spec: {
          selector: { matchLabels: { app: "d" } },
          template: {
            metadata: { labels: { app: "d" } },
            spec: { containers: [container([{ containerPort: 8080 }])] },
          },
        },
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 8080, protocol: "TCP" }]);
  });
});

describe("empty omitempty fields", () => {
  it.each([
    ["empty data and binaryData", { data: {}, binaryData: {} }, {}],
    ["null data", { data: null }, {}],
    [
      "empty labels, annotations, finalizers",
      { metadata: { labels: {}, annotations: {}, finalizers: [] } },
      {},
    ],
    ["non-empty ones kept", { data: { a: "1" }, metadata: { labels: { x: "y" } } }, { data: { a: "1" } }],
  ])("a ConfigMap with %s stores none of them, nor their managedFields", async (_, extra, expected) => {
    const extraMeta = (extra as { metadata?: Record<string, unknown> }).metadata ?? {};
    const r = await run(
      send("POST", "/api/v1/namespaces/default/configmaps", {
        ...extra,
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cm", ...extraMeta },
      }),
    );
    expect(r.status).toBe(201);
    for (const key of ["labels", "annotations", "finalizers"])
      if (!(key in extraMeta) || JSON.stringify(extraMeta[key]).length <= 2)
        expect(r.body.metadata[key]).toBeUndefined();
    expect(r.body.data).toEqual((expected as { data?: unknown }).data);
    expect(r.body.binaryData).toBeUndefined();
    const owned = JSON.stringify(r.body.metadata.managedFields ?? []);
    if ((expected as { data?: unknown }).data === undefined) expect(owned).not.toContain("f:data");
    expect(owned).not.toContain("f:finalizers");
  });
});
