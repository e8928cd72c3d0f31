/**
 * The pure pieces of the least-privilege proof: roles split into grants (one verb of one rule),
 * a role without one grant (the rule keeps its other verbs, or goes), grants described for the
 * report, and an audit log's requests of one user with its 403s.
 */
import { describe, expect, it } from "vitest";
import * as Grants from "./Grants.ts";

const role: Grants.Role = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name: "op", namespace: "ns" },
  rules: [
    { apiGroups: ["kopf.dev"], resources: ["kopfexamples"], verbs: ["list", "watch"] },
    { apiGroups: [""], resources: ["events"], verbs: ["create"] },
    { apiGroups: ["kopf.dev"], resources: ["kopfpeerings"], resourceNames: ["default"], verbs: ["patch"] },
  ],
};

describe("Grants", () => {
  it("finds the roles among manifests", () => {
    const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "op" } };
    expect(Grants.rolesOf([account, role, { ...role, kind: "ClusterRole" }]).map((r) => r.kind)).toEqual([
      "Role",
      "ClusterRole",
    ]);
  });

  it("splits every rule into its verbs", () => {
    expect(Grants.grantsOf([role]).map((grant) => [grant.rule, grant.verb])).toEqual([
      [0, "list"],
      [0, "watch"],
      [1, "create"],
      [2, "patch"],
    ]);
  });

  it.each([
    [0, "watch", [["list"], ["create"], ["patch"]]],
    [1, "create", [["list", "watch"], ["patch"]]],
    [2, "patch", [["list", "watch"], ["create"]]],
  ] as const)("takes rule %i's %s away, and the rule when no verb is left", (rule, verb, left) => {
    expect(Grants.without({ role, rule, verb }).rules.map((r) => r.verbs)).toEqual(left);
  });

  it.each([
    [0, "list", "Role op: list kopf.dev/kopfexamples"],
    [1, "create", "Role op: create events"],
    [2, "patch", "Role op: patch kopf.dev/kopfpeerings named default"],
  ] as const)("describes rule %i's %s as %s", (rule, verb, text) => {
    expect(Grants.describe({ role, rule, verb })).toBe(text);
  });

  it("reads one user's requests from an audit log, skipping malformed lines", () => {
    const line = (username: string, verb: string, code: number) =>
      JSON.stringify({ user: { username }, verb, requestURI: `/x/${verb}`, responseStatus: { code } });
    const log = [
      line("system:serviceaccount:ns:op", "list", 200),
      line("kopf-admin", "get", 403),
      "{not json",
      line("system:serviceaccount:ns:op", "patch", 403),
      "",
    ].join("\n");
    const requests = Grants.requestsOf(log, "system:serviceaccount:ns:op");
    expect(requests).toEqual([
      { verb: "list", uri: "/x/list", code: 200 },
      { verb: "patch", uri: "/x/patch", code: 403 },
    ]);
    expect(Grants.forbidden(requests)).toEqual([{ verb: "patch", uri: "/x/patch", code: 403 }]);
  });
});
