/** The declared API paths: every route kind matched by method and path into its typed target. */
import { describe, expect, it } from "vitest";
import * as Paths from "../../src/api/Paths.ts";

const resource = (
  group: string,
  version: string,
  address: Paths.ResourceAddress | undefined,
  watchPrefix = false,
): Paths.Target => ({ _tag: "Resource", group, version, watchPrefix, address });
const at = (namespace: string | undefined, res: string, name?: string, subresource?: string) => ({
  namespace,
  resource: res,
  name,
  subresource,
});

describe("Paths.match", () => {
  it.each<[string, string, Paths.Target, string]>([
    // discovery and the other documents
    ["GET", "/version", { _tag: "Version" }, "/version"],
    ["GET", "/healthz", { _tag: "Health", name: "healthz" }, "/healthz"],
    ["HEAD", "/livez", { _tag: "Health", name: "livez" }, "/livez"],
    ["GET", "/readyz", { _tag: "Health", name: "readyz" }, "/readyz"],
    ["GET", "/api", { _tag: "LegacyRoot" }, "/api"],
    ["GET", "/api/", { _tag: "LegacyRoot" }, "/api"],
    ["GET", "/apis", { _tag: "GroupsRoot" }, "/apis"],
    ["GET", "/apis/apps", { _tag: "Group", group: "apps" }, "/apis/:group"],
    ["GET", "/api/v1", { _tag: "GroupVersion", group: "", version: "v1" }, "/api/:version"],
    ["GET", "/apis/apps/v1", { _tag: "GroupVersion", group: "apps", version: "v1" }, "/apis/:group/:version"],
    ["GET", "/openapi/v2", { _tag: "OpenApiV2" }, "/openapi/v2"],
    ["GET", "/openapi/v3", { _tag: "OpenApiV3Root" }, "/openapi/v3"],
    [
      "GET",
      "/openapi/v3/api/v1",
      { _tag: "OpenApiV3", group: "", version: "v1" },
      "/openapi/v3/api/:version",
    ],
    [
      "GET",
      "/openapi/v3/apis/apps/v1",
      { _tag: "OpenApiV3", group: "apps", version: "v1" },
      "/openapi/v3/apis/:group/:version",
    ],
    // core group: collections, objects, subresources, namespaced and cluster-scoped
    ["GET", "/api/v1/pods", resource("", "v1", at(undefined, "pods")), "/api/:version/*"],
    ["POST", "/api/v1/namespaces/ns1/pods", resource("", "v1", at("ns1", "pods")), "/api/:version/*"],
    ["GET", "/api/v1/namespaces/ns1/pods/p1", resource("", "v1", at("ns1", "pods", "p1")), "/api/:version/*"],
    [
      "PATCH",
      "/api/v1/namespaces/ns1/pods/p1/status",
      resource("", "v1", at("ns1", "pods", "p1", "status")),
      "/api/:version/*",
    ],
    ["GET", "/api/v1/namespaces", resource("", "v1", at(undefined, "namespaces")), "/api/:version/*"],
    [
      "DELETE",
      "/api/v1/namespaces/ns1",
      resource("", "v1", at(undefined, "namespaces", "ns1")),
      "/api/:version/*",
    ],
    // a namespace's own subresource looks like a resource in it; the router tells them apart
    ["PUT", "/api/v1/namespaces/ns1/finalize", resource("", "v1", at("ns1", "finalize")), "/api/:version/*"],
    [
      "GET",
      "/api/v1/nodes/n1/status",
      resource("", "v1", at(undefined, "nodes", "n1", "status")),
      "/api/:version/*",
    ],
    // named groups
    [
      "GET",
      "/apis/apps/v1/namespaces/ns1/deployments/web/scale",
      resource("apps", "v1", at("ns1", "deployments", "web", "scale")),
      "/apis/:group/:version/*",
    ],
    [
      "GET",
      "/apis/kopf.dev/v1/kopfexamples",
      resource("kopf.dev", "v1", at(undefined, "kopfexamples")),
      "/apis/:group/:version/*",
    ],
    [
      "PUT",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.kopf.dev/status",
      resource(
        "apiextensions.k8s.io",
        "v1",
        at(undefined, "customresourcedefinitions", "x.kopf.dev", "status"),
      ),
      "/apis/:group/:version/*",
    ],
    // the legacy watch prefix
    ["GET", "/api/v1/watch/pods", resource("", "v1", at(undefined, "pods"), true), "/api/:version/watch/*"],
    [
      "GET",
      "/apis/apps/v1/watch/namespaces/ns1/deployments/web",
      resource("apps", "v1", at("ns1", "deployments", "web"), true),
      "/apis/:group/:version/watch/*",
    ],
    // percent-encoded segments are decoded
    [
      "GET",
      "/api/v1/namespaces/ns1/configmaps/a%3Ab",
      resource("", "v1", at("ns1", "configmaps", "a:b")),
      "/api/:version/*",
    ],
    // too many segments for any resource shape: the router answers 404 (if the version is served)
    ["GET", "/api/v1/pods/a/b/c", resource("", "v1", undefined), "/api/:version/*"],
    ["GET", "/api/v1/namespaces/ns1/pods/p1/status/extra", resource("", "v1", undefined), "/api/:version/*"],
  ])("%s %s", (method, path, target, pattern) => {
    expect(Paths.match(method, path)).toEqual({ _tag: "Matched", value: target, pattern });
  });

  it.each([
    ["/"],
    ["/nothing"],
    ["/openapi/v4"],
    ["/openapi/v3/apis/apps"],
    ["/api/v1/pods/%E0%A4%A"],
    ["/.emulator/faults"],
  ])("%s is not an API path", (path) => {
    expect(Paths.match("GET", path)).toEqual({ _tag: "NotFound" });
  });

  it.each([
    ["POST", "/version", "/version"],
    ["DELETE", "/apis", "/apis"],
    ["PUT", "/apis/apps", "/apis/:group"],
    ["POST", "/openapi/v2", "/openapi/v2"],
  ])("%s %s: the documents are read-only", (method, path, pattern) => {
    const matched = Paths.match(method, path);
    expect(matched).toMatchObject({ _tag: "MethodNotAllowed", pattern, allowed: ["GET", "HEAD"] });
  });

  it("keeps the group-version document ahead of the resources under it", () => {
    // POST /api/v1 is the read-only document, not a resource path with nothing after the version.
    expect(Paths.match("POST", "/api/v1")).toEqual({
      _tag: "MethodNotAllowed",
      value: { _tag: "GroupVersion", group: "", version: "v1" },
      pattern: "/api/:version",
      allowed: ["GET", "HEAD"],
    });
  });
});
