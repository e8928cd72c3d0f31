/**
 * The least-privilege RBAC rules of an operator, derived purely from what the operator will do:
 * its served resources and the handler kinds serving them, its settings (posting, peering,
 * scaling, scanning, managed webhooks) and where it runs. Each rule grants one verb on one
 * resource, in one namespace or cluster-wide, and carries the reason the operator needs it — the
 * request it makes — so `kopf manifests --explain` can print it and a rule can be dropped to prove
 * it is needed. The requests behind the rules:
 *
 * - the resource observer lists and watches CustomResourceDefinitions (unless scanning is
 *   disabled), and a namespaced operator lists and watches Namespaces to follow its patterns;
 * - each watched resource is listed, then watched; handlers that change objects patch them
 *   (progress and last-handled annotations, the finalizer) and their `status` subresource (the
 *   results); adding or removing the finalizer is a guarded JSON patch, re-read with a get when
 *   the API server rejects it;
 * - events are core `v1` Events, created in the object's namespace (cluster-scoped objects: the
 *   operator's own namespace), unless posting is disabled: the Warning events of changing
 *   handlers, daemons and timers failing for good and of rejected patches;
 * - peering lists, watches and patches the peering object (never creates it);
 * - leader election creates, reads and updates its one Lease; sharding lists the ring's Leases and
 *   creates, updates and deletes its own;
 * - managed webhooks create and patch the Validating/MutatingWebhookConfigurations.
 *
 * Discovery (`/api`, `/apis`) and `/version` need no rules: every authenticated user may read them.
 */
import { ConfigManager } from "@kopf/admission";
import { LeaseRecord, Scaling } from "@kopf/engines";
import type { OperatorSettings } from "@kopf/settings";
import { Namespaces, Resource } from "@kopf/structs";
import type { ServedResource } from "./ServedResources.ts";

/** The verbs an operator uses; never a wildcard. */
export type Verb = "get" | "list" | "watch" | "create" | "patch" | "delete";

/** One verb on one resource, granted cluster-wide (`namespace: null`) or in one namespace. */
export interface Rule {
  readonly namespace: string | null;
  readonly apiGroup: string;
  /** The plural, or `plural/subresource`. */
  readonly resource: string;
  readonly verb: Verb;
  /** Only this object (for verbs that can be limited by name). */
  readonly resourceName?: string | undefined;
  /** The request of the operator that needs the rule. */
  readonly reason: string;
}

/** The settings the rules depend on. */
export type RbacSettings = {
  readonly posting: Pick<OperatorSettings["posting"], "enabled">;
  readonly peering: Pick<OperatorSettings["peering"], "standalone" | "name" | "clusterwide">;
  readonly scaling: Pick<OperatorSettings["scaling"], "mode" | "leaseName" | "leaseNamespace">;
  readonly scanning: Pick<OperatorSettings["scanning"], "disabled">;
  readonly admission: Pick<OperatorSettings["admission"], "managed">;
};

/** Everything the rules are derived from. */
export interface RbacInput {
  readonly served: ReadonlyArray<ServedResource>;
  /** `-A`: serve the whole cluster. */
  readonly clusterwide: boolean;
  /** `-n`: the served namespaces or patterns (when not cluster-wide). */
  readonly namespaces: ReadonlyArray<string>;
  /** Where the operator's pod runs (its service account's namespace). */
  readonly operatorNamespace: string;
  readonly settings: RbacSettings;
  /** Admission runs: webhook handlers or typed resources with conversions are registered. */
  readonly admission: boolean;
}

/** Where namespaced grants go: every served namespace, or cluster-wide when they are not known. */
const namespacedScopes = (
  input: Pick<RbacInput, "clusterwide" | "namespaces">,
): ReadonlyArray<string | null> => {
  if (input.clusterwide || input.namespaces.length === 0) return [null];
  const specific = Namespaces.selectSpecificNamespaces(input.namespaces);
  const plain = input.namespaces.every((pattern) => specific.includes(pattern));
  return plain ? specific : [null];
};

/**
 * Whether the served namespaces are plain names (each gets a Role), or patterns or the whole
 * cluster (ClusterRole).
 *
 * @example
 * servedNamespaces({ clusterwide: false, namespaces: ["b", "a"] }) // ["a", "b"]
 * servedNamespaces({ clusterwide: false, namespaces: ["team-*"] }) // null
 */
export const servedNamespaces = (
  input: Pick<RbacInput, "clusterwide" | "namespaces">,
): ReadonlyArray<string> | null => {
  const scopes = namespacedScopes(input);
  return scopes.includes(null) ? null : (scopes as ReadonlyArray<string>);
};

const grant =
  (namespaces: ReadonlyArray<string | null>, apiGroup: string, resource: string) =>
  (verb: Verb, reason: string, resourceName?: string): ReadonlyArray<Rule> =>
    namespaces.map((namespace) => ({
      namespace,
      apiGroup,
      resource,
      verb,
      ...(resourceName === undefined ? {} : { resourceName }),
      reason,
    }));

const resourceRules = (input: RbacInput, served: ServedResource): ReadonlyArray<Rule> => {
  const { resource } = served;
  const where = resource.namespaced === true ? namespacedScopes(input) : [null];
  const name = Resource.format(resource);
  const on = grant(where, resource.group, resource.plural);
  const status = Resource.hasStatusSubresource(resource);
  return [
    ...on("list", `lists ${name} to start watching it`),
    ...on("watch", `watches ${name} for changes`),
    ...(served.patched
      ? on("patch", `patches ${name}: progress and last-handled annotations, the finalizer, handler patches`)
      : served.results && !status
        ? on("patch", `patches ${name}: handler results in its status`)
        : []),
    ...(served.results && status
      ? grant(
          where,
          resource.group,
          `${resource.plural}/status`,
        )("patch", `patches the status of ${name}: handler results and progress`)
      : []),
    ...(served.finalizer
      ? on("get", `re-reads ${name} when a guarded JSON patch (the finalizer) is rejected`)
      : []),
  ];
};

const eventRules = (input: RbacInput): ReadonlyArray<Rule> => {
  if (!input.settings.posting.enabled) return [];
  const posting = input.served.filter((s) => s.events);
  const namespaced = posting.some((s) => s.resource.namespaced === true) ? namespacedScopes(input) : [];
  const clusterScoped = posting.some((s) => s.resource.namespaced !== true) ? [input.operatorNamespace] : [];
  const scopes = [...new Set<string | null>([...namespaced, ...clusterScoped])];
  // A cluster-wide grant covers the operator's namespace too.
  const needed = scopes.includes(null) ? [null] : scopes;
  return grant(
    needed,
    "",
    "events",
  )(
    "create",
    "posts events about the handled objects (core v1 Events): failures, rejected patches, kopf.event",
  );
};

const peeringRules = (input: RbacInput): ReadonlyArray<Rule> => {
  const { peering } = input.settings;
  if (peering.standalone) return [];
  const where = peering.clusterwide ? [null] : namespacedScopes(input);
  const plural = peering.clusterwide ? "clusterkopfpeerings" : "kopfpeerings";
  const on = grant(where, "kopf.dev", plural);
  return [
    ...on("list", `lists the ${plural} to start watching the peering object`),
    ...on("watch", `watches the peering object '${peering.name}' for other operators`),
    ...on("patch", `keeps this operator's presence record in '${peering.name}' alive`, peering.name),
  ];
};

const leaseRules = (input: RbacInput): ReadonlyArray<Rule> => {
  const { scaling } = input.settings;
  if (scaling.mode === "single") return [];
  const namespace = Scaling.leaseNamespace(
    { ...scaling, leaseDuration: 0, renewDeadline: 0, retryPeriod: 0 },
    input.clusterwide ? [] : input.namespaces,
  );
  const on = grant([namespace], LeaseRecord.LEASES.group, LeaseRecord.LEASES.plural);
  if (scaling.mode === "leader-election") {
    return [
      ...on("get", `reads the election's Lease '${scaling.leaseName}'`, scaling.leaseName),
      ...on("create", `creates the election's Lease '${scaling.leaseName}' when absent`),
      ...on("patch", `acquires and renews the election's Lease '${scaling.leaseName}'`, scaling.leaseName),
    ];
  }
  return [
    ...on("list", `lists the members' Leases of the ring '${scaling.leaseName}'`),
    ...on("create", "creates this replica's Lease in the ring"),
    ...on("patch", "renews this replica's Lease and the ranges it holds"),
    ...on("delete", "deletes this replica's Lease when it leaves the ring"),
  ];
};

const admissionRules = (input: RbacInput): ReadonlyArray<Rule> => {
  const managed = input.settings.admission.managed;
  if (!input.admission || managed === null) return [];
  return (["validating", "mutating"] as const).flatMap((reason) => {
    const resource = ConfigManager.configurationResource(reason);
    const on = grant([null], resource.group, resource.plural);
    return [
      ...on("create", `creates the ${resource.kind} '${managed}' when absent`),
      ...on("patch", `points the ${resource.kind} '${managed}' at the webhook server`, managed),
    ];
  });
};

const observerRules = (input: RbacInput): ReadonlyArray<Rule> => {
  if (input.settings.scanning.disabled) return [];
  const crds = grant([null], "apiextensions.k8s.io", "customresourcedefinitions");
  const namespaces = grant([null], "", "namespaces");
  const following = !input.clusterwide && input.namespaces.length > 0;
  return [
    ...crds("list", "lists CustomResourceDefinitions to notice served resources appearing"),
    ...crds("watch", "watches CustomResourceDefinitions to notice served resources appearing"),
    ...(following ? namespaces("list", "lists Namespaces to find the served ones (--namespace)") : []),
    ...(following ? namespaces("watch", "watches Namespaces coming and going") : []),
  ];
};

const scopeOrder = (rule: Rule): string => (rule.namespace === null ? "" : `~${rule.namespace}`);

/**
 * The rules, cluster-wide ones first, then by namespace; within a scope in a fixed order
 * (observers, served resources as given, events, peering, Leases, webhook configurations).
 *
 * @example
 * ```ts
 * const all = Rbac.rules({ served, clusterwide: true, namespaces: [], operatorNamespace: "default", settings, admission: false })
 * all.map((r) => `${r.verb} ${r.resource}: ${r.reason}`)
 * ```
 */
export const rules = (input: RbacInput): ReadonlyArray<Rule> => {
  const all = [
    ...observerRules(input),
    ...input.served.flatMap((served) => resourceRules(input, served)),
    ...eventRules(input),
    ...peeringRules(input),
    ...leaseRules(input),
    ...admissionRules(input),
  ];
  const seen = new Set<string>();
  const distinct = all.filter((rule) => {
    const key = keyOf(rule);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // A stable sort: the order within a scope stays.
  return distinct
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => scopeOrder(a.rule).localeCompare(scopeOrder(b.rule)) || a.index - b.index)
    .map(({ rule }) => rule);
};

/**
 * A rule's identity: scope, group, resource, verb and name.
 *
 * @example
 * keyOf({ namespace: null, apiGroup: "", resource: "namespaces", verb: "list", reason: "" }) // "*:/namespaces:list"
 */
export const keyOf = (rule: Rule): string =>
  `${rule.namespace ?? "*"}:${rule.apiGroup}/${rule.resource}:${rule.verb}${rule.resourceName === undefined ? "" : `:${rule.resourceName}`}`;
