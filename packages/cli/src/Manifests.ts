/**
 * What an operator needs in a cluster, as Kubernetes objects built purely from its registry, its
 * settings and the deployment's options: the CRDs of its typed resources, the peering CRDs and
 * object (unless standalone), a ServiceAccount, the least-privilege rules of {@link Rbac} as a
 * ClusterRole and Roles with their bindings, a Service for admission webhooks, and a hardened
 * Deployment running `kopf run`. {@link render} writes them as multi-document YAML with each
 * rule's reason as a comment.
 */
import { PeeringCrds } from "@kopf/engines";
import type { OperatorSettings } from "@kopf/settings";
import type { JsonObject, Resource } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import type * as kopf from "kopf";
import { Document, isMap, isSeq } from "yaml";
import { deployment, object, webhookService } from "./internal/workload.ts";
import * as Rbac from "./Rbac.ts";
import * as ServedResources from "./ServedResources.ts";

/** A Kubernetes object to apply. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string | undefined };
  readonly [field: string]: unknown;
}

/** Why the manifests cannot be made. */
export class ManifestsError extends Data.TaggedError("ManifestsError")<{
  readonly reason: "Unresolved" | "BadOption";
  readonly message: string;
}> {}

/** How the operator is deployed. */
export interface ManifestOptions {
  /** The name of the ServiceAccount, roles, bindings, Service and Deployment. */
  readonly name: string;
  readonly image: string;
  /** Where the operator runs. */
  readonly operatorNamespace: string;
  /** `-A`: serve the whole cluster. */
  readonly clusterwide: boolean;
  /** `-n`: the served namespaces or patterns. */
  readonly namespaces: ReadonlyArray<string>;
  /** The container's command up to the `kopf run` options, e.g. `["node", "…/kopf.js", "run", "dist/handlers.js"]`. */
  readonly command: ReadonlyArray<string>;
  /** Options of `kopf run` passed through (`--standalone`, `--peering NAME`, `--leader-election`, …). */
  readonly runArgs: ReadonlyArray<string>;
  readonly replicas: number;
  /** The port of the liveness endpoint (`--liveness http://0.0.0.0:PORT/healthz`). */
  readonly livenessPort: number;
  /** The port the admission webhook server listens on (when webhooks are registered). */
  readonly webhookPort: number;
  /** The resources the operator may serve (discovered: built-in ones and the CRDs'). */
  readonly known: ReadonlyArray<Resource.Resource>;
  /** The CRDs of the declared typed resources. */
  readonly crds: ReadonlyArray<KubeObject>;
}

/** The objects and the rules behind their roles. */
export interface Manifests {
  readonly objects: ReadonlyArray<KubeObject>;
  readonly rules: ReadonlyArray<Rbac.Rule>;
}

export { LIVENESS_PATH, terminationGracePeriod } from "./internal/workload.ts";

const policyRule = (rule: Rbac.Rule): JsonObject => ({
  apiGroups: [rule.apiGroup],
  resources: [rule.resource],
  verbs: [rule.verb],
  ...(rule.resourceName === undefined ? {} : { resourceNames: [rule.resourceName] }),
});

/**
 * The roles granting the rules (a ClusterRole for the cluster-wide ones, a Role per namespace)
 * and their bindings to the operator's ServiceAccount: e.g. to apply a subset of the rules.
 *
 * @example
 * ```ts
 * const without = manifests.rules.filter((rule) => rule.verb !== "get")
 * Manifests.rbacObjects({ name: "my-operator", operatorNamespace: "ops" }, without)
 * ```
 */
export const rbacObjects = (
  options: Pick<ManifestOptions, "name" | "operatorNamespace">,
  rules: ReadonlyArray<Rbac.Rule>,
): ReadonlyArray<KubeObject> => {
  const subject = { kind: "ServiceAccount", name: options.name, namespace: options.operatorNamespace };
  const scopes = [...new Set(rules.map((rule) => rule.namespace))];
  return scopes.flatMap((namespace) => {
    const cluster = namespace === null;
    const roleKind = cluster ? "ClusterRole" : "Role";
    const granted = rules.filter((rule) => rule.namespace === namespace).map(policyRule);
    return [
      object("rbac.authorization.k8s.io/v1", roleKind, options.name, namespace, { rules: granted }),
      object(
        "rbac.authorization.k8s.io/v1",
        cluster ? "ClusterRoleBinding" : "RoleBinding",
        options.name,
        namespace,
        {
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: roleKind, name: options.name },
          subjects: [subject],
        },
      ),
    ];
  });
};

const peeringObjects = (settings: OperatorSettings, options: ManifestOptions): ReadonlyArray<KubeObject> => {
  if (settings.peering.standalone) return [];
  const namespaces = settings.peering.clusterwide ? [null] : (Rbac.servedNamespaces(options) ?? []);
  return [
    ...(PeeringCrds.definitions as ReadonlyArray<KubeObject>),
    ...namespaces.map(
      (namespace) => PeeringCrds.peeringObject(settings.peering.name, namespace) as KubeObject,
    ),
  ];
};

/**
 * The manifests of an operator: its registry's resources resolved among the known ones, its
 * least-privilege rules, and the objects to apply. A selector that matches no known resource is
 * an error: its rules cannot be known.
 *
 * @example
 * ```ts
 * const manifests = Manifests.manifestsFor(registry, settings, { name: "my-operator", image: "my/operator:1", ... })
 * if (Result.isSuccess(manifests)) console.log(Manifests.render(manifests.success))
 * ```
 */
export const manifestsFor = (
  registry: kopf.Registry.Registry,
  settings: OperatorSettings,
  options: ManifestOptions,
): Result.Result<Manifests, ManifestsError> => {
  if (!options.clusterwide && options.namespaces.length === 0)
    return Result.fail(
      new ManifestsError({ reason: "BadOption", message: "Pass --namespace NS or --all-namespaces." }),
    );
  const resolution = ServedResources.resolve(registry, options.known);
  if (resolution.unresolved.length > 0)
    return Result.fail(
      new ManifestsError({
        reason: "Unresolved",
        message:
          `No known resource matches ${resolution.unresolved.join(", ")}: declare it with kopf.resource(...), ` +
          "pass its CRD with --crd FILE, or name its group (e.g. kopfexamples.kopf.dev).",
      }),
    );
  const admission = ServedResources.admissionRuns(registry);
  const rules = Rbac.rules({
    served: resolution.served,
    clusterwide: options.clusterwide,
    namespaces: options.namespaces,
    operatorNamespace: options.operatorNamespace,
    settings,
    admission,
  });
  const objects: ReadonlyArray<KubeObject> = [
    ...options.crds,
    ...peeringObjects(settings, options),
    object("v1", "ServiceAccount", options.name, options.operatorNamespace, {}),
    ...rbacObjects(options, rules),
    ...(admission ? [webhookService(options)] : []),
    deployment(options, settings, admission),
  ];
  return Result.succeed({ objects, rules });
};

/**
 * Whether an object is a definition to apply (and have established) before the rest.
 *
 * @example
 * isDefinition({ kind: "CustomResourceDefinition", ... }) // true
 */
export const isDefinition = (object: KubeObject): boolean => object.kind === "CustomResourceDefinition";

/**
 * The objects as multi-document YAML; each rule of a role carries its reason as a comment.
 *
 * @example
 * ```ts
 * process.stdout.write(Manifests.render(manifests.objects, manifests.rules))
 * ```
 */
export const render = (objects: ReadonlyArray<KubeObject>, rules: ReadonlyArray<Rbac.Rule>): string =>
  objects
    .map((item) => {
      const document = new Document(item, { aliasDuplicateObjects: false });
      if (item.kind === "Role" || item.kind === "ClusterRole") {
        const scope = item.kind === "Role" ? (item.metadata.namespace ?? null) : null;
        const reasons = rules.filter((rule) => rule.namespace === scope).map((rule) => rule.reason);
        const list = document.get("rules");
        if (isSeq(list)) {
          list.items.forEach((node, index) => {
            if (!isMap(node)) return;
            node.commentBefore = ` ${reasons[index] ?? ""}`;
            // One verb on one resource: each list on one line.
            for (const pair of node.items) if (isSeq(pair.value)) pair.value.flow = true;
          });
        }
      }
      return document.toString({ lineWidth: 0 });
    })
    .join("---\n");

/**
 * The rules as text, one per line: scope, verb, resource (and name), and why.
 *
 * @example
 * explain(rules) // "cluster-wide  list  apiextensions.k8s.io/customresourcedefinitions  — lists CustomResourceDefinitions ..."
 */
export const explain = (rules: ReadonlyArray<Rbac.Rule>): string =>
  rules
    .map((rule) => {
      const scope = rule.namespace === null ? "cluster-wide" : `in ${rule.namespace}`;
      const group = rule.apiGroup === "" ? "" : `${rule.apiGroup}/`;
      const name = rule.resourceName === undefined ? "" : ` '${rule.resourceName}'`;
      return `${scope}: ${rule.verb} ${group}${rule.resource}${name} — ${rule.reason}\n`;
    })
    .join("");
