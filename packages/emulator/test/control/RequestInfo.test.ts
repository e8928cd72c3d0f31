// Covers the classification of requests into Kubernetes verbs and resources (kube-apiserver's
// request-info rules): core and named groups, namespaced and cluster paths, subresources,
// namespace subresources, watch (query and legacy path), and non-resource paths.
import { assert, describe, it } from "@effect/vitest";
import * as RequestInfo from "../../src/control/RequestInfo.ts";

type Row = readonly [
  string,
  string,
  string,
  string,
  string | undefined,
  string | undefined,
  string | undefined,
  string | undefined,
];

describe("RequestInfo.parse", () => {
  // method, path?query, verb, group, namespace, resource, subresource, name
  const rows: ReadonlyArray<Row> = [
    ["GET", "/api/v1/namespaces", "list", "", undefined, "namespaces", undefined, undefined],
    ["GET", "/api/v1/namespaces/ns1", "get", "", "ns1", "namespaces", undefined, "ns1"],
    ["PUT", "/api/v1/namespaces/ns1/finalize", "update", "", "ns1", "namespaces", "finalize", "ns1"],
    ["PATCH", "/api/v1/namespaces/ns1/status", "patch", "", "ns1", "namespaces", "status", "ns1"],
    ["GET", "/api/v1/namespaces/ns1/pods", "list", "", "ns1", "pods", undefined, undefined],
    ["GET", "/api/v1/namespaces/ns1/pods?watch=true", "watch", "", "ns1", "pods", undefined, undefined],
    ["GET", "/api/v1/namespaces/ns1/pods?watch=1", "watch", "", "ns1", "pods", undefined, undefined],
    ["GET", "/api/v1/namespaces/ns1/pods?watch=false", "list", "", "ns1", "pods", undefined, undefined],
    ["GET", "/api/v1/watch/namespaces/ns1/pods", "watch", "", "ns1", "pods", undefined, undefined],
    ["GET", "/api/v1/pods", "list", "", undefined, "pods", undefined, undefined],
    ["POST", "/api/v1/namespaces/ns1/pods", "create", "", "ns1", "pods", undefined, undefined],
    ["DELETE", "/api/v1/namespaces/ns1/pods", "deletecollection", "", "ns1", "pods", undefined, undefined],
    ["DELETE", "/api/v1/namespaces/ns1/pods/p", "delete", "", "ns1", "pods", undefined, "p"],
    [
      "PATCH",
      "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/x/status",
      "patch",
      "kopf.dev",
      "ns1",
      "kopfexamples",
      "status",
      "x",
    ],
    [
      "PUT",
      "/apis/apps/v1/namespaces/ns1/deployments/d/scale",
      "update",
      "apps",
      "ns1",
      "deployments",
      "scale",
      "d",
    ],
    [
      "GET",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.b",
      "get",
      "apiextensions.k8s.io",
      undefined,
      "customresourcedefinitions",
      undefined,
      "a.b",
    ],
  ];
  it.each(rows)("%s %s → %s", (method, target, verb, group, namespace, resource, subresource, name) => {
    const url = new URL(target, "http://x");
    const info = RequestInfo.parse(method, url.pathname, url.searchParams);
    assert.deepStrictEqual(info, {
      _tag: "Resource",
      verb,
      apiGroup: group,
      apiVersion: "v1",
      namespace,
      resource: resource ?? "",
      subresource,
      name,
    });
  });

  it.each([
    ["GET", "/version", "get"],
    ["GET", "/apis", "get"],
    ["GET", "/apis/kopf.dev", "get"],
    ["GET", "/apis/kopf.dev/v1", "get"],
    ["GET", "/api", "get"],
    ["GET", "/api/v1", "get"],
    ["POST", "/openapi/v2", "post"],
  ])("%s %s is a non-resource request", (method, path, verb) => {
    assert.deepStrictEqual(RequestInfo.parse(method, path, new URLSearchParams()), {
      _tag: "NonResource",
      verb,
      path,
    });
  });

  it("resourcePath joins a subresource", () => {
    const info = RequestInfo.parse("GET", "/api/v1/namespaces/a/pods/p/log", new URLSearchParams());
    assert.strictEqual(RequestInfo.resourcePath(info), "pods/log");
    assert.strictEqual(
      RequestInfo.resourcePath(RequestInfo.parse("GET", "/version", new URLSearchParams())),
      undefined,
    );
  });
});
