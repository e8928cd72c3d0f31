/**
 * The router end to end on the in-process emulator, one row per route kind: discovery documents,
 * core and named groups, namespaced and cluster-scoped resources, subresources (including a
 * namespace's own), both ways of watching, read-only documents, and the two kinds of not found
 * (a plain-text 404 outside served versions, a Status 404 inside them).
 */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { CRD, cm, run, send, watch } from "./Harness.ts";

const setup = Effect.all([
  send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD),
  send("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } }),
  send("POST", "/api/v1/namespaces/ns1/configmaps", cm("c1")),
]);

describe("routing", () => {
  it.each<[string, string, number, string]>([
    ["GET", "/version", 200, "version"],
    ["GET", "/healthz", 200, "text ok"],
    ["GET", "/api", 200, "APIVersions"],
    ["GET", "/apis", 200, "APIGroupList"],
    ["GET", "/apis/apps", 200, "APIGroup"],
    ["GET", "/api/v1", 200, "APIResourceList"],
    ["GET", "/apis/kopf.dev/v1", 200, "APIResourceList"],
    ["GET", "/openapi/v3", 200, "openapi"],
    ["POST", "/version", 405, "Status MethodNotAllowed"],
    ["POST", "/apis/apps", 405, "Status MethodNotAllowed"],
    // a document that does not exist is 404 whatever the method
    ["POST", "/apis/no.such.group", 404, "text 404 page not found"],
    ["GET", "/apis/apps/v9", 404, "text 404 page not found"],
    ["GET", "/nothing/here", 404, "text 404 page not found"],
    ["GET", "/api/v1/namespaces/ns1/configmaps", 200, "ConfigMapList"],
    ["GET", "/api/v1/configmaps", 200, "ConfigMapList"],
    ["GET", "/api/v1/namespaces/ns1/configmaps/c1", 200, "ConfigMap"],
    ["GET", "/api/v1/namespaces/ns1", 200, "Namespace"],
    ["GET", "/api/v1/namespaces/ns1/status", 200, "Namespace"],
    ["GET", "/apis/kopf.dev/v1/kopfexamples", 200, "KopfExampleList"],
    ["GET", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/missing/status", 404, "Status NotFound"],
    [
      "GET",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kopfexamples.kopf.dev/status",
      200,
      "CustomResourceDefinition",
    ],
    // inside a served version, unknown resources and shapes are a Status 404
    ["GET", "/api/v1/namespaces/ns1/nosuchthings", 404, "Status NotFound"],
    ["GET", "/api/v1/namespaces/ns1/configmaps/c1/nosuchsub", 404, "Status NotFound"],
    ["GET", "/api/v1/configmaps/c1", 404, "Status NotFound"],
    ["GET", "/api/v1/pods/a/b/c", 404, "Status NotFound"],
    ["GET", "/api/v1/namespaces/ns1/nodes", 404, "Status NotFound"],
  ])("%s %s → %i %s", async (method, path, status, what) => {
    const answer = await run(Effect.andThen(setup, send(method, path)));
    expect(answer.status).toBe(status);
    const [kind, ...reason] = what.split(" ");
    if (kind === "text") expect(answer.text.trim()).toBe(reason.join(" "));
    else if (kind === "Status") expect(answer.body).toMatchObject({ kind: "Status", reason: reason[0] });
    else if (kind === "version") expect(answer.body.gitVersion).toMatch(/^v1\./);
    else if (kind === "openapi") expect(answer.body.paths).toBeDefined();
    else expect(answer.body.kind).toBe(kind);
  });

  it.each([
    ["/api/v1/namespaces/ns1/configmaps?watch=true"],
    ["/api/v1/watch/namespaces/ns1/configmaps"],
    ["/api/v1/watch/namespaces/ns1/configmaps/c1"],
    ["/api/v1/watch/configmaps"],
  ])("watches %s", async (url) => {
    const opened = await run(Effect.andThen(setup, watch(url, 1)));
    expect(opened.status).toBe(200);
    expect(opened.events).toMatchObject([{ type: "ADDED", object: { metadata: { name: "c1" } } }]);
  });
});
