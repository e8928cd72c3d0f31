/**
 * The least-privilege proof, on a real kube-apiserver with RBAC authorization (the real tier's
 * "least-privilege" project; its setup starts the control plane and points KOPF_TEST_CLUSTER at
 * the admin's kubeconfig, next to the audit log of the admin's and every service account's
 * requests). The manifests `kopf manifests` derives from an operator's handlers
 * (fixtures/least-privilege.ts: create/update/delete handlers, a finalizer, status results,
 * events, a daemon, a timer; with peering) are applied with the admin's credentials; then the
 * operator runs with its service account's token (TokenRequest) and nothing else, and a scenario
 * creates, updates and deletes an object:
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
import { Result } from "effect";
import * as kopf from "kopf";
import { afterAll, beforeAll, expect, it } from "vitest";
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

let cluster: Clusters.Built;
let admin: KopfRunner.KopfRunner;
let manifests: ReadonlyArray<Record<string, unknown>>;
let setup: Scenario.Setup;
let dir: string | undefined;

/** Asks the authorizer (as the admin) whether the service account may do what a grant allows. */
const allowed = async (grant: Grants.Grant): Promise<boolean> => {
  const rule = grant.role.rules[grant.rule];
  const attributes =
    rule?.nonResourceURLs !== undefined
      ? { nonResourceAttributes: { path: rule.nonResourceURLs[0], verb: grant.verb } }
      : {
          resourceAttributes: {
            namespace,
            verb: grant.verb,
            group: rule?.apiGroups?.[0] ?? "",
            resource: (rule?.resources?.[0] ?? "").split("/")[0],
            subresource: (rule?.resources?.[0] ?? "").split("/")[1] ?? "",
            name: rule?.resourceNames?.[0] ?? "",
          },
        };
  const answer = await admin.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: setup.username,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
      ...attributes,
    },
  });
  return answer.body?.status?.allowed === true;
};

/** Waits until the authorizer's cache has the roles as applied (it follows them by a watch). */
const settle = async (grant: Grants.Grant, expected: boolean) => {
  const deadline = Date.now() + 10_000;
  while ((await allowed(grant)) !== expected) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
};

beforeAll(async () => {
  cluster = await Clusters.build(Clusters.kubeconfig(adminKubeconfig));
  admin = await KopfRunner.start({
    registry: kopf.Registry.make(),
    namespaces: ["none"],
    standalone: true,
    cluster,
  });
  await admin.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await admin.apply(join(root, "examples/crd.yaml"));
  manifests = await Manifests.generate({
    handlers,
    namespace,
    name: "kopf-least-privilege",
    crds: [join(root, "examples/crd.yaml")],
    root,
  });
  // The CRDs first (the peering ones are among the manifests), then what needs them served.
  await admin.apply(manifests.filter((object) => object.kind === "CustomResourceDefinition"));
  await admin.apply(manifests.filter((object) => object.kind !== "CustomResourceDefinition"));
  const peering = manifests.find((object) => object.kind === "KopfPeering");
  if (peering === undefined) throw new Error("the manifests have no KopfPeering object");

  const account = manifests.find((object) => object.kind === "ServiceAccount") as
    | { metadata: { name: string } }
    | undefined;
  if (account === undefined) throw new Error("the manifests have no ServiceAccount");
  const token = await admin.request(
    "POST",
    `/api/v1/namespaces/${namespace}/serviceaccounts/${account.metadata.name}/token`,
    { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
  );
  expect(token.status, JSON.stringify(token.body)).toBe(201);
  const config = parseYaml(await readFile(adminKubeconfig, "utf8")) as {
    clusters: ReadonlyArray<{ cluster: { server: string; "certificate-authority-data": string } }>;
  };
  const server = config.clusters[0]?.cluster;
  dir = await mkdtemp(join(tmpdir(), "kopf-least-privilege-"));
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "real", cluster: server }],
      users: [{ name: "operator", user: { token: token.body.status.token } }],
      contexts: [{ name: "operator", context: { cluster: "real", user: "operator", namespace } }],
      "current-context": "operator",
    }),
  );
  setup = {
    admin,
    namespace,
    kubeconfig,
    username: `system:serviceaccount:${namespace}:${account.metadata.name}`,
    auditLog,
    handlers,
    registry: kopf.Registry.make(),
    peering,
  };
}, 120_000);

afterAll(async () => {
  await admin?.stop();
  await cluster?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const report: Record<string, unknown> = {};

it("binds the service account to the generated roles only", async () => {
  const [namespaced, clusterwide] = await Promise.all([
    admin.request("GET", "/apis/rbac.authorization.k8s.io/v1/rolebindings"),
    admin.request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"),
  ]);
  const account = setup.username.split(":")[3];
  type Binding = {
    kind?: string;
    metadata: { name: string; namespace?: string };
    subjects?: ReadonlyArray<{ kind: string; name: string; namespace?: string }>;
  };
  const naming = [...namespaced.body.items, ...clusterwide.body.items]
    .map((binding: Binding) => ({
      ...binding,
      kind: binding.metadata.namespace ? "RoleBinding" : "ClusterRoleBinding",
    }))
    .filter((binding: Binding) =>
      (binding.subjects ?? []).some(
        (subject) =>
          (subject.kind === "ServiceAccount" &&
            subject.name === account &&
            subject.namespace === namespace) ||
          (subject.kind === "User" && subject.name === setup.username) ||
          (subject.kind === "Group" && subject.name === `system:serviceaccounts:${namespace}`),
      ),
    )
    .map((binding: Binding) => `${binding.kind} ${binding.metadata.name}`)
    .sort();
  const generated = manifests
    .filter((object) => object.kind === "RoleBinding" || object.kind === "ClusterRoleBinding")
    .map((object) => `${object.kind} ${(object.metadata as { name: string }).name}`)
    .sort();
  expect(naming).toEqual(generated);
  // RBAC is on: what no role grants is refused.
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
  expect(await allowed(secrets)).toBe(false);
});

it("runs the whole scenario with the generated permissions and is refused nothing", async () => {
  const outcome = await Scenario.run(setup, "lp-all", { stopAtForbidden: false, stepTimeout: 30_000 });
  report.requestsAudited = outcome.requests.length;
  report.forbidden = outcome.forbidden.length;
  console.log(
    `least privilege: ${outcome.requests.length} requests of ${setup.username} audited, ${outcome.forbidden.length} forbidden (403)`,
  );
  console.log(outcome.steps.map(([what, ms]) => `  ${ms} ms: ${what}`).join("\n"));
  expect(outcome.failed, outcome.output).toBeUndefined();
  expect(outcome.requests.length).toBeGreaterThan(0);
  expect(outcome.forbidden).toEqual([]);
});

it("needs every grant: without any one, the scenario fails or a request is refused", async () => {
  const roles = Grants.rolesOf(manifests);
  const grants = Grants.grantsOf(roles);
  const checked: Array<{ grant: string; necessary: boolean; why: string }> = [];
  for (const [index, grant] of grants.entries()) {
    await admin.apply({ ...Grants.without(grant) });
    const effective = await settle(grant, false);
    const outcome = effective
      ? await Scenario.run(setup, `lp-drop-${index}`, {
          stopAtForbidden: true,
          stepTimeout: 15_000,
          // A refused request is retried (403 is briefly normal during upgrades): not for long here.
          errorBackoffs: [0.2],
        })
      : undefined;
    await admin.apply({ ...grant.role });
    await settle(grant, true);
    const why =
      outcome === undefined
        ? "another rule grants it too"
        : outcome.forbidden.length > 0
          ? `refused: ${outcome.forbidden[0]?.verb} ${outcome.forbidden[0]?.uri}`
          : (outcome.failed ?? "nothing failed");
    const necessary = outcome !== undefined && (outcome.failed !== undefined || outcome.forbidden.length > 0);
    checked.push({ grant: Grants.describe(grant), necessary, why });
  }
  const rules = new Set(
    grants.map((grant) => `${grant.role.kind}/${grant.role.metadata.name}/${grant.rule}`),
  );
  const necessaryRules = new Set(
    grants
      .filter((_, index) => checked[index]?.necessary === true)
      .map((grant) => `${grant.role.kind}/${grant.role.metadata.name}/${grant.rule}`),
  );
  Object.assign(report, {
    rulesChecked: rules.size,
    rulesNecessary: necessaryRules.size,
    grantsChecked: checked.length,
    grantsNecessary: checked.filter((c) => c.necessary).length,
    grants: checked,
  });
  for (const c of checked) console.log(`  ${c.necessary ? "needed  " : "UNNEEDED"} ${c.grant} — ${c.why}`);
  console.log(
    `least privilege: ${rules.size} rules checked, ${necessaryRules.size} necessary; ` +
      `${checked.length} grants (verbs) checked, ${checked.filter((c) => c.necessary).length} necessary`,
  );
  await mkdir(join(root, ".reports"), { recursive: true });
  await writeFile(join(root, ".reports/rbac.json"), `${JSON.stringify(report, null, 2)}\n`);
  expect(checked.filter((c) => !c.necessary)).toEqual([]);
  expect(necessaryRules.size).toBe(rules.size);
}, 600_000);
