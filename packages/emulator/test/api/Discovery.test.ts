/** Discovery documents: /version, /api, /api/v1, /apis, groups, aggregated discovery, OpenAPI indexes. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { run, send } from "./Harness.ts";

describe("discovery", () => {
  it("serves /version, /api and /apis", async () => {
    const r = await run(Effect.all([send("GET", "/version"), send("GET", "/api"), send("GET", "/apis")]));
    expect(r[0].body).toMatchObject({ major: "1", minor: "36", gitVersion: "v1.36.3" });
    expect(r[1].body).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    expect(r[2].body.kind).toBe("APIGroupList");
    expect(r[2].body.groups.map((g: any) => g.name)).toEqual([
      "apps",
      "events.k8s.io",
      "admissionregistration.k8s.io",
      "apiextensions.k8s.io",
      "coordination.k8s.io",
    ]);
  });

  it("describes core resources with verbs, short names and subresources", async () => {
    const r = await run(send("GET", "/api/v1"));
    expect(r.body.kind).toBe("APIResourceList");
    expect(r.body.groupVersion).toBe("v1");
    const byName = Object.fromEntries(r.body.resources.map((x: any) => [x.name, x]));
    expect(byName.configmaps).toEqual({
      name: "configmaps",
      singularName: "configmap",
      namespaced: true,
      kind: "ConfigMap",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["cm"],
    });
    expect(byName.namespaces.namespaced).toBe(false);
    expect(byName["namespaces/status"]).toMatchObject({
      kind: "Namespace",
      verbs: ["get", "patch", "update"],
    });
    expect(byName["pods/status"]).toBeDefined();
  });

  it("serves aggregated discovery when asked for", async () => {
    const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    const r = await run(send("GET", "/apis", undefined, { accept }));
    expect(r.headers["content-type"]).toBe(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    );
    expect(r.body.kind).toBe("APIGroupDiscoveryList");
    const apps = r.body.items.find((i: any) => i.metadata.name === "apps");
    const deployments = apps.versions[0].resources.find((x: any) => x.resource === "deployments");
    expect(deployments).toMatchObject({
      responseKind: { group: "apps", version: "v1", kind: "Deployment" },
      scope: "Namespaced",
      singularResource: "deployment",
      shortNames: ["deploy"],
      categories: ["all"],
    });
    expect(deployments.subresources.map((s: any) => s.subresource)).toEqual(["status", "scale"]);
  });

  it("indexes OpenAPI v3 by group-version", async () => {
    const r = await run(
      Effect.all([
        send("GET", "/openapi/v3"),
        send("GET", "/openapi/v3/apis/apps/v1"),
        send("GET", "/openapi/v2"),
      ]),
    );
    expect(r[0].body.paths["apis/apps/v1"]).toEqual({ serverRelativeURL: "/openapi/v3/apis/apps/v1" });
    const patch = r[1].body.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].patch;
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({
      group: "apps",
      version: "v1",
      kind: "Deployment",
    });
    expect(patch.parameters.map((p: any) => p.name)).toContain("fieldValidation");
    expect(r[2].body.swagger).toBe("2.0");
  });
});
