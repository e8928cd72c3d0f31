/**
 * The manifests as objects: which objects for which configuration (peering, webhooks, typed
 * resources, scaling), the Deployment's hardening (non-root, no privilege escalation, no
 * capabilities, RuntimeDefault seccomp, read-only root with a writable /tmp, requests and
 * limits), its identity from the downward API, its grace period longer than the operator's exit,
 * its command line a valid `kopf run` whose plan matches the manifests, the bindings to the one
 * ServiceAccount; the YAML parses back to the same objects and carries each rule's reason.
 */
import { Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Result from "effect/Result";
import * as kopf from "kopf";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import yargs from "yargs";
import { Manifests, RunArgs } from "../src/index.ts";

const kopfexamples = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  shortcuts: ["kex"],
  namespaced: true,
  subresources: ["status"],
  preferred: true,
});

const noop = () => undefined;

const base: Manifests.ManifestOptions = {
  name: "my-operator",
  image: "registry.example.com/my-operator:1.0.0",
  operatorNamespace: "ops",
  clusterwide: false,
  namespaces: ["ns1"],
  command: ["node", "node_modules/@kopf/cli/bin/kopf.js", "run", "dist/handlers.js"],
  runArgs: [],
  replicas: 1,
  livenessPort: 8080,
  webhookPort: 9443,
  known: [kopfexamples],
  crds: [],
};

const settingsOf = (overrides: Settings.Overrides = {}) => Result.getOrThrow(Settings.make(overrides));

const make = (
  register: (registry: kopf.Registry.Registry) => void,
  options: Partial<Manifests.ManifestOptions> = {},
  overrides: Settings.Overrides = { peering: { standalone: true } },
) => {
  const registry = kopf.Registry.make();
  register(registry);
  return Result.getOrThrow(Manifests.manifestsFor(registry, settingsOf(overrides), { ...base, ...options }));
};

const kinds = (manifests: Manifests.Manifests) =>
  manifests.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);

interface Container {
  readonly command: ReadonlyArray<string>;
  readonly args: ReadonlyArray<string>;
  readonly env: ReadonlyArray<{ name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  readonly ports: ReadonlyArray<{ name: string; containerPort: number }>;
  readonly livenessProbe: { httpGet: { path: string; port: string } };
  readonly startupProbe: { httpGet: { path: string; port: string } };
  readonly resources: { requests: Record<string, string>; limits: Record<string, string> };
  readonly securityContext: Record<string, unknown>;
  readonly volumeMounts: ReadonlyArray<{ name: string; mountPath: string }>;
}

interface PodSpec {
  readonly serviceAccountName: string;
  readonly terminationGracePeriodSeconds: number;
  readonly securityContext: Record<string, unknown>;
  readonly containers: ReadonlyArray<Container>;
  readonly volumes: ReadonlyArray<{ name: string; emptyDir?: object }>;
}

const deploymentOf = (manifests: Manifests.Manifests) => {
  const found = manifests.objects.find((o) => o.kind === "Deployment");
  if (found === undefined) throw new Error("no Deployment");
  const spec = found.spec as { replicas: number; strategy: { type: string }; template: { spec: PodSpec } };
  const pod = spec.template.spec;
  const container = pod.containers[0];
  if (container === undefined) throw new Error("no container");
  return { spec, pod, container };
};

/** The container's command line as `kopf run` parses and plans it. */
const runPlanOf = (container: Container) => {
  const argv = [...container.command.slice(2), ...container.args];
  expect(argv[0]).toBe("run");
  const parsed = yargs()
    .command("run [paths..]", "", RunArgs.configure)
    .exitProcess(false)
    .strict()
    .parseSync(argv);
  return Result.getOrThrow(RunArgs.plan(parsed as unknown as RunArgs.ParsedRunArgs, {}));
};

describe("Manifests.manifestsFor", () => {
  it("a namespaced standalone operator: account, roles, bindings, Deployment — nothing else", () => {
    const manifests = make((r) => r.on.create("kopfexamples", noop));
    expect(kinds(manifests)).toEqual([
      "ServiceAccount/ops/my-operator",
      "ClusterRole//my-operator",
      "ClusterRoleBinding//my-operator",
      "Role/ns1/my-operator",
      "RoleBinding/ns1/my-operator",
      "Deployment/ops/my-operator",
    ]);
    for (const binding of manifests.objects.filter((o) => o.kind.endsWith("Binding"))) {
      expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "my-operator", namespace: "ops" }]);
      expect((binding.roleRef as { kind: string }).kind).toBe(binding.kind.replace("Binding", ""));
    }
    const role = manifests.objects.find((o) => o.kind === "Role");
    expect(role?.rules).toContainEqual({
      apiGroups: ["kopf.dev"],
      resources: ["kopfexamples/status"],
      verbs: ["patch"],
    });
  });

  it("the RBAC objects of a subset of the rules (to drop one and see what breaks)", () => {
    const manifests = make((r) => r.on.delete("kopfexamples", noop));
    const without = manifests.rules.filter((rule) => rule.verb !== "get");
    const objects = Manifests.rbacObjects(base, without);
    const role = objects.find((o) => o.kind === "Role");
    expect(role?.rules).toHaveLength(without.filter((rule) => rule.namespace === "ns1").length);
    expect(JSON.stringify(objects)).not.toContain('"get"');
    expect(JSON.stringify(manifests.objects)).toContain('"get"');
  });

  it("peering: the peering CRDs first, and the peering object of each served namespace", () => {
    const manifests = make((r) => r.on.create("kopfexamples", noop), { namespaces: ["ns1", "ns2"] }, {});
    expect(kinds(manifests).slice(0, 4)).toEqual([
      "CustomResourceDefinition//clusterkopfpeerings.kopf.dev",
      "CustomResourceDefinition//kopfpeerings.kopf.dev",
      "KopfPeering/ns1/default",
      "KopfPeering/ns2/default",
    ]);
    const clusterwide = make(
      (r) => r.on.create("kopfexamples", noop),
      { clusterwide: true, namespaces: [] },
      { peering: { clusterwide: true } },
    );
    expect(kinds(clusterwide)).toContain("ClusterKopfPeering//default");
    expect(kinds(clusterwide)).not.toContain("Role/ns1/my-operator");
  });

  it("the CRDs of typed resources go first", () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "x.kopf.dev" },
    };
    const manifests = make((r) => r.on.create("kopfexamples", noop), { crds: [crd] });
    expect(manifests.objects[0]).toEqual(crd);
  });

  it("webhooks: a Service to the webhook port of the pod", () => {
    const manifests = make((r) => r.on.validate("kex", noop));
    const service = manifests.objects.find((o) => o.kind === "Service");
    expect(service?.spec).toEqual({
      selector: { "app.kubernetes.io/name": "my-operator" },
      ports: [{ name: "webhooks", port: 9443, targetPort: "webhooks" }],
    });
    expect(deploymentOf(manifests).container.ports).toContainEqual({ name: "webhooks", containerPort: 9443 });
    expect(kinds(make((r) => r.on.create("kopfexamples", noop)))).not.toContain("Service/ops/my-operator");
  });

  it("a hardened pod: non-root, no escalation, no capabilities, RuntimeDefault, read-only root with /tmp", () => {
    const { pod, container } = deploymentOf(make((r) => r.on.create("kopfexamples", noop)));
    expect(pod.serviceAccountName).toBe("my-operator");
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.volumeMounts).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
    expect(pod.volumes).toEqual([{ name: "tmp", emptyDir: {} }]);
    expect(Object.keys(container.resources.requests).sort()).toEqual(["cpu", "memory"]);
    expect(Object.keys(container.resources.limits).sort()).toEqual(["cpu", "memory"]);
  });

  it("the identity from the pod's name; a grace period longer than the operator may take to exit", () => {
    const settings = settingsOf();
    const { pod, container } = deploymentOf(make((r) => r.on.create("kopfexamples", noop)));
    expect(container.env).toContainEqual({
      name: "POD_ID",
      valueFrom: { fieldRef: { fieldPath: "metadata.name" } },
    });
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(settings.process.ultimateExitingTimeout ?? 0);
    const quick = settingsOf({ process: { ultimateExitingTimeout: null }, queueing: { exitTimeout: 20 } });
    expect(Manifests.terminationGracePeriod(quick)).toBeGreaterThan(20);
  });

  it("the command line is a valid kopf run: the served namespaces, the liveness endpoint the probes ask", () => {
    const { spec, container } = deploymentOf(make((r) => r.on.create("kopfexamples", noop)));
    const plan = runPlanOf(container);
    expect(plan.paths).toEqual(["dist/handlers.js"]);
    expect(plan.namespaces).toEqual(["ns1"]);
    expect(plan.clusterwide).toBe(false);
    const liveness = new URL(plan.liveness ?? "");
    expect(liveness.pathname).toBe(container.livenessProbe.httpGet.path);
    expect(liveness.pathname).toBe(container.startupProbe.httpGet.path);
    expect(container.ports).toContainEqual({ name: "liveness", containerPort: Number(liveness.port) });
    expect(spec.replicas).toBe(1);
    expect(spec.strategy.type).toBe("Recreate");
  });

  it("scaled out: the replicas, a rolling update, the run options passed through", () => {
    const { spec, container } = deploymentOf(
      make(
        (r) => r.on.create("kopfexamples", noop),
        {
          clusterwide: true,
          namespaces: [],
          replicas: 3,
          runArgs: ["--standalone", "--leader-election", "--lease-namespace", "ops"],
        },
        { peering: { standalone: true }, scaling: { mode: "leader-election", leaseNamespace: "ops" } },
      ),
    );
    expect(spec.replicas).toBe(3);
    expect(spec.strategy.type).toBe("RollingUpdate");
    const plan = runPlanOf(container);
    expect([plan.clusterwide, plan.leaderElection, plan.leaseNamespace, plan.standalone]).toEqual([
      true,
      true,
      "ops",
      true,
    ]);
  });

  it("fails clearly on selectors it cannot resolve and on no served scope", () => {
    const registry = kopf.Registry.make();
    registry.on.create("unknowns", noop);
    const unresolved = Manifests.manifestsFor(registry, settingsOf(), base);
    expect(Result.isFailure(unresolved) && unresolved.failure.reason).toBe("Unresolved");
    expect(Result.isFailure(unresolved) && unresolved.failure.message).toContain("--crd");
    const unscoped = Manifests.manifestsFor(kopf.Registry.make(), settingsOf(), { ...base, namespaces: [] });
    expect(Result.isFailure(unscoped) && unscoped.failure.reason).toBe("BadOption");
  });
});

describe("Manifests.render", () => {
  it("parses back to the same objects, with each rule's reason as a comment", () => {
    const manifests = make((r) => r.on.delete("kopfexamples", noop), {}, {});
    const text = Manifests.render(manifests.objects, manifests.rules);
    const documents = parseAllDocuments(text);
    expect(documents.map((d) => ("toJS" in d ? d.errors.length : 1))).toEqual(manifests.objects.map(() => 0));
    expect(documents.map((d) => ("toJS" in d ? d.toJS() : undefined))).toEqual(
      JSON.parse(JSON.stringify(manifests.objects)),
    );
    for (const rule of manifests.rules) expect(text).toContain(`# ${rule.reason}\n`);
    expect(text).not.toContain("*");
  });

  it("explains every rule in one line", () => {
    const manifests = make((r) => r.on.create("kopfexamples", noop));
    const lines = Manifests.explain(manifests.rules).trimEnd().split("\n");
    expect(lines).toHaveLength(manifests.rules.length);
    expect(lines).toContain(
      "in ns1: patch kopf.dev/kopfexamples/status — patches the status of kopfexamples.v1.kopf.dev: handler results and progress",
    );
  });
});
