// Resource: construction with defaults, identity, printing, apiVersion and URLs with Kopf's errors (docs/behaviour/registration.md#public-api).
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import * as Resource from "../src/Resource.ts";
import { failureOf } from "./support/failureOf.ts";

const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const clusterKex = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "clusterkopfexamples",
  namespaced: false,
});
const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true });
const nodes = Resource.make({ group: "", version: "v1", plural: "nodes", namespaced: false });

describe("make", () => {
  it("fills Kopf's defaults", () => {
    expect(Resource.make({ group: "g", version: "v", plural: "p" })).toEqual({
      group: "g",
      version: "v",
      plural: "p",
      kind: undefined,
      singular: undefined,
      shortcuts: [],
      categories: [],
      subresources: [],
      namespaced: undefined,
      preferred: true,
      verbs: [],
    });
  });

  it("de-duplicates name sets and freezes the value", () => {
    const r = Resource.make({
      group: "g",
      version: "v",
      plural: "p",
      shortcuts: ["a", "a", "b"],
      verbs: new Set(["list"]),
    });
    expect(r.shortcuts).toEqual(["a", "b"]);
    expect(r.verbs).toEqual(["list"]);
    expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(r.shortcuts)).toBe(true);
  });
});

describe("equals", () => {
  it.each<[string, Resource.ResourceFields, Resource.ResourceFields, boolean]>([
    [
      "same triple, other names",
      { group: "g", version: "v", plural: "p", kind: "K" },
      { group: "g", version: "v", plural: "p", preferred: false },
      true,
    ],
    [
      "other group",
      { group: "g", version: "v", plural: "p" },
      { group: "h", version: "v", plural: "p" },
      false,
    ],
    [
      "other version",
      { group: "g", version: "v", plural: "p" },
      { group: "g", version: "w", plural: "p" },
      false,
    ],
    [
      "other plural",
      { group: "g", version: "v", plural: "p" },
      { group: "g", version: "v", plural: "q" },
      false,
    ],
  ])("%s ⇒ %s", (_, a, b, expected) => {
    expect(Resource.equals(Resource.make(a), Resource.make(b))).toBe(expected);
  });
});

describe("toString and apiVersion", () => {
  it.each<[Resource.ResourceFields, string, string]>([
    [{ group: "kopf.dev", version: "v1", plural: "kopfexamples" }, "kopfexamples.v1.kopf.dev", "kopf.dev/v1"],
    [{ group: "", version: "v1", plural: "pods" }, "pods.v1", "v1"],
    [{ group: "", version: "v1", plural: "pods/status" }, "pods.v1/status", "v1"],
    [
      { group: "apps", version: "v1", plural: "deployments/scale/x" },
      "deployments.v1.apps/scale/x",
      "apps/v1",
    ],
  ])("%j ⇒ %s, %s", (fields, text, apiVersion) => {
    expect(Resource.toString(Resource.make(fields))).toBe(text);
    expect(Resource.apiVersion(Resource.make(fields))).toBe(apiVersion);
  });
});

describe("url", () => {
  it.each<[string, Resource.Resource, Resource.UrlOptions, string]>([
    ["a namespaced list cluster-wide", kex, {}, "/apis/kopf.dev/v1/kopfexamples"],
    [
      "a namespaced list in a namespace",
      kex,
      { namespace: "ns1" },
      "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples",
    ],
    [
      "a namespaced object",
      kex,
      { namespace: "ns1", name: "kex1" },
      "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/kex1",
    ],
    [
      "a subresource",
      kex,
      { namespace: "ns1", name: "kex1", subresource: "status" },
      "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/kex1/status",
    ],
    ["a cluster-scoped object", clusterKex, { name: "kex1" }, "/apis/kopf.dev/v1/clusterkopfexamples/kex1"],
    ["a core list", pods, { namespace: "default" }, "/api/v1/namespaces/default/pods"],
    ["a core cluster-scoped object", nodes, { name: "n1" }, "/api/v1/nodes/n1"],
    ["a null namespace", kex, { namespace: null }, "/apis/kopf.dev/v1/kopfexamples"],
    ["an empty namespace as cluster-wide", kex, { namespace: "" }, "/apis/kopf.dev/v1/kopfexamples"],
    [
      "an empty namespace for a cluster-scoped list",
      clusterKex,
      { namespace: "" },
      "/apis/kopf.dev/v1/clusterkopfexamples",
    ],
    [
      "query parameters",
      kex,
      { params: { watch: "true", labelSelector: "a in (x y),b!=c*" } },
      "/apis/kopf.dev/v1/kopfexamples?watch=true&labelSelector=a+in+%28x+y%29%2Cb%21%3Dc%2A",
    ],
    [
      "a server",
      kex,
      { server: "https://k8s:6443/", namespace: "ns" },
      "https://k8s:6443/apis/kopf.dev/v1/namespaces/ns/kopfexamples",
    ],
  ])("builds %s", (_, r, options, expected) => {
    expect(Result.getOrThrow(Resource.url(r, options))).toBe(expected);
  });

  it.each<[string, Resource.Resource, Resource.UrlOptions, Resource.ResourceErrorReason, string]>([
    [
      "a subresource without a name",
      kex,
      { namespace: "ns", subresource: "status" },
      "SubresourceWithoutName",
      "Subresources can be used only with specific resources by their name.",
    ],
    [
      "a namespace for a cluster-scoped resource",
      clusterKex,
      { namespace: "ns" },
      "NamespaceForClusterScoped",
      "Specific namespaces are not supported for cluster-scoped resources.",
    ],
    [
      "a namespace for a resource of unknown scope",
      Resource.make({ group: "g", version: "v", plural: "p" }),
      { namespace: "ns" },
      "NamespaceForClusterScoped",
      "Specific namespaces are not supported for cluster-scoped resources.",
    ],
    [
      "a name without a namespace",
      kex,
      { name: "kex1" },
      "NamespaceRequired",
      "Specific namespaces are required for specific namespaced resources.",
    ],
  ])("refuses %s", (_, r, options, reason, message) => {
    const failure = failureOf(Resource.url(r, options));
    expect(failure.reason).toBe(reason);
    expect(failure.message).toBe(message);
  });
});

describe("hasStatusSubresource", () => {
  it("reads the subresources", () => {
    expect(
      Resource.hasStatusSubresource(
        Resource.make({ group: "g", version: "v", plural: "p", subresources: ["status", "scale"] }),
      ),
    ).toBe(true);
    expect(Resource.hasStatusSubresource(kex)).toBe(false);
  });
});
