/**
 * The output of `kopf manifests` on a real kube-apiserver (the real tier's e2e project; the
 * emulator serves no RBAC, so the file is skipped there): for a scaffolded project (the deployment
 * guide's command, written to manifests/), a typed resource served cluster-wide with leader
 * election and managed webhooks, and example 17 namespaced with sharding, every object is accepted
 * and can be read back, and the API server's RBAC authorizer answers as the rules say: each rule's
 * request is allowed to the operator's ServiceAccount, and requests no rule grants (deleting
 * the served objects, reading Secrets) are denied.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KubeApi } from "@kopf/client";
import { Resource } from "@kopf/structs";
import { Applying, Clusters } from "@kopf/testing";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { invoke } from "../support/invoke.ts";
import { type Scaffold, scaffold } from "../support/scaffold.ts";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "../fixtures");
const examples = join(here, "../../../../examples");

interface PolicyRule {
  readonly apiGroups: ReadonlyArray<string>;
  readonly resources: ReadonlyArray<string>;
  readonly verbs: ReadonlyArray<string>;
  readonly resourceNames?: ReadonlyArray<string>;
}

interface Doc {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: ReadonlyArray<PolicyRule>;
}

const documents = (yaml: string): ReadonlyArray<Doc> =>
  parseAllDocuments(yaml).map((d) => ("toJS" in d ? (d.toJS() as Doc) : ({} as Doc)));

const reviews = Resource.make({
  group: "authorization.k8s.io",
  version: "v1",
  plural: "subjectaccessreviews",
  kind: "SubjectAccessReview",
  namespaced: false,
});

const run = <A>(effect: Effect.Effect<A, unknown, KubeApi>) =>
  Effect.runPromise(Effect.scoped(effect.pipe(Effect.provide(Clusters.selected()))));

/** Applies the objects in order (CRDs awaited until established), then reads each back. */
const applyAll = (objects: ReadonlyArray<Doc>) =>
  run(
    Effect.gen(function* () {
      yield* Applying.apply(objects);
      const api = yield* KubeApi;
      const found: Array<string> = [];
      for (const object of objects) {
        const [group, version] = object.apiVersion.includes("/")
          ? object.apiVersion.split("/")
          : ["", object.apiVersion];
        const discovered = yield* api.discover({ groups: [group ?? ""] });
        const resource = discovered
          .filter((gv) => gv.version === version)
          .flatMap((gv) => gv.resources.map((r) => ({ gv, r })))
          .find(({ r }) => r.kind === object.kind && !r.name.includes("/"));
        if (resource === undefined) continue;
        const body = yield* api.get(
          Resource.make({
            group: group ?? "",
            version: version ?? "v1",
            plural: resource.r.name,
            namespaced: resource.r.namespaced,
          }),
          { namespace: object.metadata.namespace ?? null, name: object.metadata.name },
        );
        found.push(`${body.kind}/${body.metadata?.name}`);
      }
      return found;
    }),
  );

interface Access {
  readonly namespace: string | null;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly name?: string | undefined;
}

/** Whether the API server's authorizer allows the request to the service account. */
const allowed = (account: { name: string; namespace: string }, access: Access) =>
  run(
    Effect.gen(function* () {
      const api = yield* KubeApi;
      const [resource, subresource] = access.resource.split("/");
      const review = yield* api.create(reviews, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: `system:serviceaccount:${account.namespace}:${account.name}`,
          groups: [
            "system:serviceaccounts",
            `system:serviceaccounts:${account.namespace}`,
            "system:authenticated",
          ],
          resourceAttributes: {
            verb: access.verb,
            group: access.group,
            resource: resource ?? "",
            ...(subresource === undefined ? {} : { subresource }),
            ...(access.namespace === null ? {} : { namespace: access.namespace }),
            ...(access.name === undefined ? {} : { name: access.name }),
          },
        },
      });
      return (review.status as { allowed?: boolean } | undefined)?.allowed === true;
    }),
  );

/** Every request the roles grant, as the authorizer is asked about it. */
const granted = (objects: ReadonlyArray<Doc>): ReadonlyArray<Access> =>
  objects
    .filter((o) => o.kind === "Role" || o.kind === "ClusterRole")
    .flatMap((role) =>
      (role.rules ?? []).map(
        (rule): Access => ({
          // A ClusterRole's namespaced grants hold in any namespace: ask about one.
          namespace: role.kind === "Role" ? (role.metadata.namespace ?? null) : null,
          verb: rule.verbs[0] ?? "",
          group: rule.apiGroups[0] ?? "",
          resource: rule.resources[0] ?? "",
          name: rule.resourceNames?.[0],
        }),
      ),
    );

const namespace = (name: string): Doc => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });

/** Checks that the objects are accepted and that the authorizer answers as the rules say. */
const check = async (
  objects: ReadonlyArray<Doc>,
  account: { name: string; namespace: string },
  denied: ReadonlyArray<Access>,
) => {
  const found = await applyAll(objects);
  expect(found).toEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`));
  const grants = granted(objects);
  expect(grants.length).toBeGreaterThan(0);
  for (const access of grants) expect([access, await allowed(account, access)]).toEqual([access, true]);
  for (const access of denied) expect([access, await allowed(account, access)]).toEqual([access, false]);
};

describe.skipIf(Clusters.isEmulator())("kopf manifests on a real API server", () => {
  let project: Scaffold;
  beforeAll(() => {
    project = scaffold("mf-scaffold", ["--namespace", "mf-team-a"]);
  }, 60_000);
  afterAll(() => project?.remove());

  it("a scaffolded project: npm run manifests -- --image ... --output manifests/, then applied", async () => {
    const argv = project.manifests(
      "--image",
      "registry.example.com/mf-scaffold:0.1.0",
      "--output",
      "manifests/",
    );
    const result = await invoke(argv, project.root);
    expect(result.stderr).toBe("");
    const read = (file: string) => documents(readFileSync(join(project.root, file), "utf8"));
    const objects = [
      namespace("mf-team-a"),
      ...read("manifests/01-crds.yaml"),
      ...read("crd.yaml"),
      ...read("manifests/02-operator.yaml"),
    ];
    await check(objects, { name: "mf-scaffold", namespace: "mf-team-a" }, [
      { namespace: "mf-team-a", verb: "delete", group: "example.com", resource: "widgets" },
      { namespace: "mf-team-a", verb: "get", group: "", resource: "secrets" },
      { namespace: "mf-other", verb: "list", group: "example.com", resource: "widgets" },
      { namespace: "mf-team-a", verb: "patch", group: "kopf.dev", resource: "kopfpeerings", name: "other" },
    ]);
  });

  it("a typed resource cluster-wide with leader election and managed webhooks", async () => {
    const result = await invoke(
      [
        ...["manifests", "typed.ts", "-A", "--name", "mf-widgets", "--operator-namespace", "mf-ops"],
        ...["--leader-election", "--webhook-managed", "mf.kopf.dev"],
      ],
      fixtures,
    );
    expect(result.stderr).toBe("");
    const objects = [namespace("mf-ops"), ...documents(result.stdout)];
    expect(objects.map((o) => o.kind)).toContain("Service");
    await check(objects, { name: "mf-widgets", namespace: "mf-ops" }, [
      { namespace: null, verb: "delete", group: "kopf.dev", resource: "widgets" },
      { namespace: "mf-ops", verb: "patch", group: "coordination.k8s.io", resource: "leases", name: "other" },
      {
        namespace: null,
        verb: "delete",
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
      },
    ]);
  });

  it("example 17 namespaced with sharding", async () => {
    const result = await invoke(
      [
        ...[
          "manifests",
          "src/handlers.ts",
          "-n",
          "mf-ns17",
          "--crd",
          "../crd.yaml",
          "--name",
          "mf-admission",
        ],
        ...["--sharding", "--webhook-managed", "auto.kopf.dev"],
      ],
      join(examples, "17-admission"),
    );
    expect(result.stderr).toBe("");
    const objects = [namespace("mf-ns17"), ...documents(result.stdout)];
    await check(objects, { name: "mf-admission", namespace: "mf-ns17" }, [
      { namespace: "mf-ns17", verb: "list", group: "kopf.dev", resource: "kopfexamples" },
      { namespace: "mf-ns17", verb: "get", group: "coordination.k8s.io", resource: "leases" },
    ]);
  });
});
