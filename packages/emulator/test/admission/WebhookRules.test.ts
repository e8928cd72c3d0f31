// Covers which webhooks a request reaches: resource entries (`*`, `*/*`, `pods/*`, `*/status`),
// operations, groups, versions and scope in rules; namespaceSelector on namespaced objects,
// namespaces themselves and cluster-scoped objects; objectSelector on object or old object;
// malformed selectors; and the call order (configurations by name, webhooks in list order).
import { assert, describe, it } from "@effect/vitest";
import * as WebhookRules from "../../src/admission/WebhookRules.ts";
import { admissionRequest } from "./support.ts";

describe("WebhookRules.resourceMatches", () => {
  it.each([
    ["kopfexamples", "kopfexamples", "", true],
    ["kopfexamples", "kopfexamples", "status", false],
    ["*", "kopfexamples", "", true],
    ["*", "kopfexamples", "status", false],
    ["*/*", "kopfexamples", "status", true],
    ["*/*", "kopfexamples", "", true],
    ["kopfexamples/*", "kopfexamples", "status", true],
    // As kube-apiserver v1.34 matches it on the real tier: "*" as the subresource includes none.
    ["kopfexamples/*", "kopfexamples", "", true],
    ["kopfexamples/*", "pods", "", false],
    ["*/scale", "kopfexamples", "status", false],
    ["kopfexamples/status", "kopfexamples", "status", true],
    ["kopfexamples/status", "kopfexamples", "scale", false],
    ["*/status", "pods", "status", true],
    ["*/status", "pods", "", false],
    ["pods", "kopfexamples", "", false],
  ] as const)("%s covers %s/%s: %s", (entry, resource, sub, expected) => {
    assert.strictEqual(WebhookRules.resourceMatches(entry, resource, sub), expected);
  });
});

describe("WebhookRules.ruleMatches", () => {
  const rule = {
    operations: ["CREATE", "UPDATE"],
    apiGroups: ["kopf.dev"],
    apiVersions: ["v1"],
    resources: ["kopfexamples"],
  };
  it.each([
    ["a matching rule", rule, {}, true],
    ["another operation", rule, { operation: "DELETE" as const }, false],
    ["operation *", { ...rule, operations: ["*"] }, { operation: "DELETE" as const }, true],
    ["another group", { ...rule, apiGroups: ["apps"] }, {}, false],
    ["group *", { ...rule, apiGroups: ["*"] }, {}, true],
    ["another version", { ...rule, apiVersions: ["v2"] }, {}, false],
    ["scope Namespaced on a namespaced object", { ...rule, scope: "Namespaced" }, {}, true],
    ["scope Cluster on a namespaced object", { ...rule, scope: "Cluster" }, {}, false],
    [
      "scope Cluster on a cluster object",
      { ...rule, scope: "Cluster" },
      { namespaced: false, namespace: "" },
      true,
    ],
    ["scope * on a cluster object", { ...rule, scope: "*" }, { namespaced: false, namespace: "" }, true],
    ["no operations", { ...rule, operations: [] }, {}, false],
  ])("%s", (_, r, overrides, expected) => {
    assert.strictEqual(WebhookRules.ruleMatches(r, admissionRequest(overrides)), expected);
  });
});

describe("WebhookRules.select", () => {
  const rules = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }];
  const webhook = (extra: Record<string, unknown>): WebhookRules.Webhook => ({
    configuration: "c",
    name: "w.kopf.dev",
    raw: { name: "w.kopf.dev", rules, ...extra },
  });
  const namespaces: Record<string, Record<string, string>> = { ns1: { env: "prod" }, ns2: { env: "dev" } };
  const labels = (ns: string) => namespaces[ns];
  const namespaceObject = admissionRequest({
    resource: { group: "", version: "v1", resource: "namespaces" },
    namespace: "",
    name: "ns3",
    namespaced: false,
    object: { metadata: { name: "ns3", labels: { env: "prod" } } },
  });
  const clusterObject = admissionRequest({
    resource: { group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles" },
    namespace: "",
    namespaced: false,
  });
  it.each([
    ["no selectors", {}, admissionRequest(), "Call"],
    ["no matching rule", { rules: [{ ...rules[0], operations: ["DELETE"] }] }, admissionRequest(), "Skip"],
    [
      "namespaceSelector matchLabels match",
      { namespaceSelector: { matchLabels: { env: "prod" } } },
      admissionRequest(),
      "Call",
    ],
    [
      "namespaceSelector matchLabels miss",
      { namespaceSelector: { matchLabels: { env: "prod" } } },
      admissionRequest({ namespace: "ns2" }),
      "Skip",
    ],
    [
      "namespaceSelector NotIn",
      { namespaceSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] } },
      admissionRequest(),
      "Skip",
    ],
    [
      "namespaceSelector DoesNotExist",
      { namespaceSelector: { matchExpressions: [{ key: "team", operator: "DoesNotExist" }] } },
      admissionRequest(),
      "Call",
    ],
    [
      "namespaceSelector on a Namespace uses its own labels",
      { namespaceSelector: { matchLabels: { env: "prod" } } },
      namespaceObject,
      "Call",
    ],
    [
      "namespaceSelector never skips other cluster objects",
      { namespaceSelector: { matchLabels: { env: "none" } } },
      clusterObject,
      "Call",
    ],
    [
      "objectSelector on the object",
      { objectSelector: { matchLabels: { app: "x" } } },
      admissionRequest(),
      "Call",
    ],
    [
      "objectSelector on the old object (delete)",
      { objectSelector: { matchLabels: { app: "x" } } },
      admissionRequest({
        operation: "DELETE",
        object: undefined,
        oldObject: { metadata: { labels: { app: "x" } } },
      }),
      "Call",
    ],
    [
      "objectSelector matching neither",
      { objectSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["y"] }] } },
      admissionRequest(),
      "Skip",
    ],
    [
      "objectSelector Exists",
      { objectSelector: { matchExpressions: [{ key: "app", operator: "Exists" }] } },
      admissionRequest(),
      "Call",
    ],
  ] as const)("%s", (_, extra, request, expected) => {
    assert.strictEqual(WebhookRules.select(webhook(extra), request, labels), expected);
  });

  it("reports malformed selectors", () => {
    const bad = WebhookRules.select(
      webhook({ objectSelector: { matchExpressions: [{ key: "a", operator: "Near" }] } }),
      admissionRequest(),
      labels,
    );
    assert.deepStrictEqual(bad, {
      _tag: "InvalidSelector",
      message: 'webhook "w.kopf.dev" has an invalid objectSelector',
    });
  });
});

describe("WebhookRules.webhooksOf", () => {
  it("orders configurations by name and keeps webhooks in list order", () => {
    const configs = [
      { metadata: { name: "b" }, webhooks: [{ name: "b1" }, { name: "b2" }] },
      { metadata: { name: "a" }, webhooks: [{ name: "a2" }, { name: "a1" }] },
      { metadata: { name: "c" } },
    ];
    assert.deepStrictEqual(
      WebhookRules.webhooksOf(configs).map((w) => `${w.configuration}/${w.name}`),
      ["a/a2", "a/a1", "b/b1", "b/b2"],
    );
  });
});
