/**
 * The least-privilege proof, on a real kube-apiserver with RBAC authorization (the real tier's
 * "least-privilege" project; its setup starts the control plane and points KOPF_TEST_CLUSTER at
 * the admin's kubeconfig, next to the audit log of the admin's and every service account's
 * requests). The manifests `kopf manifests` derives from an operator's handlers
 * (fixtures/least-privilege.ts: create/update/delete handlers, a finalizer, status results,
 * events, a daemon, a timer; with peering) are applied with the admin's credentials; then the
 * operator runs with its service account's token (TokenRequest) and nothing else, and a scenario
 * creates, updates and deletes an object. Both scopes are proven, one after the other on the same
 * control plane: an operator of one namespace (`-n`: Roles, KopfPeering) and a cluster-wide one
 * (`-A`: a ClusterRole, ClusterKopfPeering).
 * - with the generated permissions, every step happens and the audit log shows no 403 for the
 *   service account, which is bound to nothing but the generated roles;
 * - with any one grant (one verb of one rule) taken away, the scenario fails or a request of the
 *   service account is refused (403): no grant is unnecessary.
 * The counts go to the output and to .reports/rbac.json.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Clusters, ClusterTarget, KopfRunner } from "@kopf/testing";
import * as Result from "effect/Result";
import * as kopf from "kopf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import * as Manifests from "./support/GeneratedManifests.ts";
import * as Grants from "./support/Grants.ts";
import * as Scenario from "./support/Scenario.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");
const handlers = join(here, "fixtures/least-privilege.ts");
const namespace = "kopf-least-privilege";

const adminKubeconfig = (() => {
  const target = ClusterTarget.parse(process.env[ClusterTarget.ENV_VAR]);
  if (Result.isSuccess(target) && target.success._tag === "Kubeconfig") return target.success.path;
  throw new Error(
    `${ClusterTarget.ENV_VAR} must name the real tier's control plane (kubeconfig:PATH, with audit.log next to it); ` +
      "run: npm run test:real -- --project least-privilege",
  );
})();
const auditLog = join(dirname(adminKubeconfig), "audit.log");

/** The two scopes: the options of `kopf manifests` and of `kopf run`, and the objects' name. */
const modes = [
  { mode: "namespaced", name: "kopf-least-privilege", manifests: ["-n", namespace], run: ["-n", namespace] },
  {
    mode: "cluster-wide",
    name: "kopf-lp-clusterwide",
    manifests: ["-A", "--operator-namespace", namespace],
    run: ["-A"],
  },
] as const;

let cluster: Clusters.Built;
let admin: KopfRunner.KopfRunner;
let dir: string;
/** Shared by every run of both modes: the handler file is imported once per process. */
const registry = kopf.Registry.make();
/** What .reports/rbac.json gets, per mode. */
const report: Record<string, Record<string, unknown>> = {};

/** Asks the authorizer (as the admin) whether a user may do what a grant allows. */
const allowed = async (username: string, grant: Grants.Grant): Promise<boolean> => {
  const rule = grant.role.rules[grant.rule];
  const [resource, subresource] = (rule?.resources?.[0] ?? "").split("/");
  const attributes =
    rule?.nonResourceURLs !== undefined
      ? { nonResourceAttributes: { path: rule.nonResourceURLs[0], verb: grant.verb } }
      : {
          resourceAttributes: {
            namespace,
            verb: grant.verb,
            group: rule?.apiGroups?.[0] ?? "",
            resource,
            subresource: subresource ?? "",
            name: rule?.resourceNames?.[0] ?? "",
          },
        };
  const answer = await admin.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: username,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
      ...attributes,
    },
  });
  return answer.body?.status?.allowed === true;
};

/** Waits until the authorizer's cache has the roles as applied (it follows them by a watch). */
const settle = async (username: string, grant: Grants.Grant, expected: boolean) => {
  const deadline = Date.now() + 10_000;
  while ((await allowed(username, grant)) !== expected) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
};

/** A kubeconfig of the admin's server and CA, with a service account's token. */
const writeKubeconfig = async (name: string, token: string) => {
  const config = parseYaml(await readFile(adminKubeconfig, "utf8")) as {
    clusters: ReadonlyArray<{ cluster: { server: string; "certificate-authority-data": string } }>;
  };
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "real", cluster: config.clusters[0]?.cluster }],
      users: [{ name, user: { token } }],
      contexts: [{ name, context: { cluster: "real", user: name, namespace } }],
      "current-context": name,
    }),
  );
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kopf-least-privilege-"));
  cluster = await Clusters.build(Clusters.kubeconfig(adminKubeconfig));
  admin = await KopfRunner.start({
    registry: kopf.Registry.make(),
    namespaces: ["none"],
    standalone: true,
    cluster,
  });
  await admin.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await admin.apply(join(root, "examples/crd.yaml"));
}, 120_000);

afterAll(async () => {
  await admin?.stop();
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(root, ".reports"), { recursive: true });
  await writeFile(join(root, ".reports/rbac.json"), `${JSON.stringify(report, null, 2)}\n`);
});

describe.each(modes)("$mode", ({ mode, name, manifests: scope, run }) => {
  let manifests: ReadonlyArray<Record<string, unknown>>;
  let setup: Scenario.Setup;
  const counts: Record<string, unknown> = {};
  report[mode] = counts;

  beforeAll(async () => {
    manifests = await Manifests.generate({
      handlers,
      scope,
      name,
      crds: [join(root, "examples/crd.yaml")],
      root,
    });
    // The CRDs first (the peering ones are among the manifests), then what needs them served.
    await admin.apply(manifests.filter((object) => object.kind === "CustomResourceDefinition"));
    await admin.apply(manifests.filter((object) => object.kind !== "CustomResourceDefinition"));
    const peering = manifests.find(Scenario.isPeering);
    if (peering === undefined) throw new Error("the manifests have no peering object");
    const account = manifests.find((object) => object.kind === "ServiceAccount") as
      | { metadata: { name: string; namespace: string } }
      | undefined;
    if (account === undefined) throw new Error("the manifests have no ServiceAccount");
    const { name: accountName, namespace: accountNamespace } = account.metadata;
    const token = await admin.request(
      "POST",
      `/api/v1/namespaces/${accountNamespace}/serviceaccounts/${accountName}/token`,
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
    );
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    setup = {
      admin,
      namespace,
      scope: run,
      kubeconfig: await writeKubeconfig(name, token.body.status.token),
      username: `system:serviceaccount:${accountNamespace}:${accountName}`,
      auditLog,
      handlers,
      registry,
      peering,
    };
  }, 120_000);

  it("binds the service account to the generated roles only, and RBAC refuses the rest", async () => {
    const [namespaced, clusterwide] = await Promise.all([
      admin.request("GET", "/apis/rbac.authorization.k8s.io/v1/rolebindings"),
      admin.request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"),
    ]);
    const [, , accountNamespace, accountName] = setup.username.split(":");
    type Binding = {
      metadata: { name: string; namespace?: string };
      subjects?: ReadonlyArray<{ kind: string; name: string; namespace?: string }>;
    };
    const naming = [...namespaced.body.items, ...clusterwide.body.items]
      .filter((binding: Binding) =>
        (binding.subjects ?? []).some(
          (subject) =>
            (subject.kind === "ServiceAccount" &&
              subject.name === accountName &&
              subject.namespace === accountNamespace) ||
            (subject.kind === "User" && subject.name === setup.username) ||
            (subject.kind === "Group" && subject.name === `system:serviceaccounts:${accountNamespace}`),
        ),
      )
      .map(
        (binding: Binding) =>
          `${binding.metadata.namespace ? "RoleBinding" : "ClusterRoleBinding"} ${binding.metadata.name}`,
      )
      .sort();
    const generated = manifests
      .filter((object) => object.kind === "RoleBinding" || object.kind === "ClusterRoleBinding")
      .map((object) => `${object.kind} ${(object.metadata as { name: string }).name}`)
      .sort();
    expect(naming).toEqual(generated);
    // RBAC is on: what no rule grants is refused.
    const secrets: Grants.Grant = {
      role: {
        apiVersion: "",
        kind: "Role",
        metadata: { name: "none" },
        rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }],
      },
      rule: 0,
      verb: "list",
    };
    expect(await allowed(setup.username, secrets)).toBe(false);
  });

  it("runs the whole scenario with the generated permissions and is refused nothing", async () => {
    const outcome = await Scenario.run(setup, `lp-${mode}`, { stopAtForbidden: false, stepTimeout: 30_000 });
    counts.requestsAudited = outcome.requests.length;
    counts.forbidden = outcome.forbidden.length;
    console.log(
      `least privilege (${mode}): ${outcome.requests.length} requests of ${setup.username} audited, ` +
        `${outcome.forbidden.length} forbidden (403)\n` +
        outcome.steps.map(([what, ms]) => `  ${ms} ms: ${what}`).join("\n"),
    );
    expect(outcome.failed, outcome.output).toBeUndefined();
    expect(outcome.requests.length).toBeGreaterThan(0);
    expect(outcome.forbidden).toEqual([]);
  });

  it("needs every rule: without any one, the scenario fails or a request is refused", async () => {
    const grants = Grants.grantsOf(Grants.rolesOf(manifests));
    const checked: Array<{ grant: string; necessary: boolean; why: string }> = [];
    for (const [index, grant] of grants.entries()) {
      await admin.apply({ ...Grants.without(grant) });
      const effective = await settle(setup.username, grant, false);
      const outcome = effective
        ? await Scenario.run(setup, `lp-${mode}-${index}`, {
            stopAtForbidden: true,
            stepTimeout: 15_000,
            // A refused request is retried (403 is briefly normal during upgrades): not for long here.
            errorBackoffs: [0.2],
          })
        : undefined;
      await admin.apply({ ...grant.role });
      await settle(setup.username, grant, true);
      const refused = outcome?.forbidden[0];
      const why =
        outcome === undefined
          ? "another rule grants it too"
          : refused !== undefined
            ? `refused: ${refused.verb} ${refused.uri}`
            : (outcome.failed ?? "nothing failed");
      const necessary = outcome !== undefined && (outcome.failed !== undefined || refused !== undefined);
      checked.push({ grant: Grants.describe(grant), necessary, why });
    }
    // A rule is needed when taking away any of its verbs is noticed (a rule of kopf manifests has one).
    const ruleOf = (grant: Grants.Grant) => `${grant.role.kind}/${grant.role.metadata.name}/${grant.rule}`;
    const rules = new Set(grants.map(ruleOf));
    const needed = new Set(grants.filter((_, index) => checked[index]?.necessary === true).map(ruleOf));
    const verbsNeeded = checked.filter((c) => c.necessary).length;
    Object.assign(counts, {
      rulesChecked: rules.size,
      rulesNecessary: needed.size,
      verbsChecked: checked.length,
      verbsNecessary: verbsNeeded,
      rules: checked,
    });
    console.log(
      [
        ...checked.map((c) => `  ${c.necessary ? "needed  " : "UNNEEDED"} ${c.grant} — ${c.why}`),
        `least privilege (${mode}): ${rules.size} rules checked, ${needed.size} necessary; ` +
          `${checked.length} verbs checked, ${verbsNeeded} necessary`,
      ].join("\n"),
    );
    expect(checked.filter((c) => !c.necessary)).toEqual([]);
    expect(needed.size).toBe(rules.size);
  }, 600_000);
});
