/**
 * What the emulator knows about a kind of resource: names for discovery and URLs, scope, verbs,
 * subresources and the per-type rules of its registry strategy; and the built-in types it serves.
 */
import type { StructuralSchema } from "./Schema.ts";
import type { PrinterColumn } from "./Tables.ts";

export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

export type NameRule = "subdomain" | "label" | "dns1035" | "path";

export interface ResourceType {
  readonly group: string;
  /** Served versions, the preferred one first. */
  readonly versions: ReadonlyArray<string>;
  /** The version objects are stored in (their apiVersion at rest). */
  readonly storageVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: ReadonlyArray<string>;
  readonly categories: ReadonlyArray<string>;
  readonly namespaced: boolean;
  readonly verbs: ReadonlyArray<string>;
  readonly status: boolean;
  readonly scale: ScaleSubresource | undefined;
  /** Other subresources discovery lists (e.g. `finalize` of namespaces). */
  readonly extraSubresources: ReadonlyArray<string>;
  readonly custom: boolean;
  /** Whether metadata.generation is maintained. */
  readonly generation: boolean;
  readonly allowUnconditionalUpdate: boolean;
  /** Whether a delete answers with the deleted object (else with a Success Status). */
  readonly returnDeletedObject: boolean;
  /**
   * Field selector labels. With `fieldLabelsConverted` (a conversion function is registered for the
   * kind, as for pods and custom resources) exactly these; otherwise these plus metadata.name and
   * metadata.namespace.
   */
  readonly fieldSelectors: ReadonlyArray<string>;
  readonly fieldLabelsConverted: boolean;
  readonly nameRule: NameRule;
  /** Structural schemas per version (custom resources only). */
  readonly schemas: ReadonlyMap<string, StructuralSchema>;
  /** The table this type's objects are stored in, when it is another type's (events.k8s.io Events live in core Events). */
  readonly storedAs?: { readonly group: string; readonly plural: string };
  /** additionalPrinterColumns of a custom resource (empty for built-ins). */
  readonly printerColumns: ReadonlyArray<PrinterColumn>;
}

/** The key of a type's table in the store: `group/plural`. */
export const keyOf = (t: { readonly group: string; readonly plural: string }): string =>
  `${t.group}/${t.plural}`;

export const apiVersionOf = (group: string, version: string): string =>
  group === "" ? version : `${group}/${version}`;

export const STANDARD_VERBS: ReadonlyArray<string> = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

interface BuiltinSpec {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: ReadonlyArray<string>;
  readonly categories?: ReadonlyArray<string>;
  readonly namespaced: boolean;
  readonly verbs?: ReadonlyArray<string>;
  readonly status?: boolean;
  readonly scale?: ScaleSubresource;
  readonly extraSubresources?: ReadonlyArray<string>;
  readonly generation?: boolean;
  readonly returnDeletedObject?: boolean;
  readonly fieldSelectors?: ReadonlyArray<string>;
  readonly fieldLabelsConverted?: boolean;
  readonly storedAs?: { readonly group: string; readonly plural: string };
  readonly nameRule?: NameRule;
}

const converted = (...labels: ReadonlyArray<string>) => ({
  fieldSelectors: labels,
  fieldLabelsConverted: true,
});

const builtin = (s: BuiltinSpec): ResourceType => ({
  group: s.group,
  versions: [s.version],
  storageVersion: s.version,
  kind: s.kind,
  listKind: `${s.kind}List`,
  plural: s.plural,
  singular: s.kind.toLowerCase(),
  shortNames: s.shortNames ?? [],
  categories: s.categories ?? [],
  namespaced: s.namespaced,
  verbs: s.verbs ?? STANDARD_VERBS,
  status: s.status ?? false,
  scale: s.scale,
  extraSubresources: s.extraSubresources ?? [],
  custom: false,
  generation: s.generation ?? false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: s.returnDeletedObject ?? false,
  fieldSelectors: s.fieldSelectors ?? [],
  fieldLabelsConverted: s.fieldLabelsConverted ?? false,
  nameRule: s.nameRule ?? "subdomain",
  schemas: new Map(),
  printerColumns: [],
  ...(s.storedAs === undefined ? {} : { storedAs: s.storedAs }),
});

const EVENT_FIELDS = [
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "source",
  "type",
];

/** The built-in types the emulator serves, as a real apiserver describes them. */
export const BUILTINS: ReadonlyArray<ResourceType> = [
  builtin({
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    shortNames: ["ns"],
    namespaced: false,
    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
    status: true,
    returnDeletedObject: true,
    extraSubresources: ["finalize"],
    ...converted("status.phase", "metadata.name"),
    nameRule: "label",
  }),
  builtin({
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
    shortNames: ["cm"],
    namespaced: true,
  }),
  builtin({
    group: "",
    version: "v1",
    kind: "Secret",
    plural: "secrets",
    namespaced: true,
    ...converted("type", "metadata.namespace", "metadata.name"),
  }),
  builtin({
    group: "",
    version: "v1",
    kind: "ServiceAccount",
    plural: "serviceaccounts",
    shortNames: ["sa"],
    namespaced: true,
    returnDeletedObject: true,
  }),
  builtin({
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
    shortNames: ["po"],
    categories: ["all"],
    namespaced: true,
    status: true,
    generation: true,
    returnDeletedObject: true,
    ...converted(
      "metadata.name",
      "metadata.namespace",
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.podIPs",
      "status.nominatedNodeName",
    ),
  }),
  builtin({
    group: "",
    version: "v1",
    kind: "Service",
    plural: "services",
    shortNames: ["svc"],
    categories: ["all"],
    namespaced: true,
    verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
    status: true,
    returnDeletedObject: true,
    ...converted("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"),
    nameRule: "dns1035",
  }),
  builtin({
    group: "",
    version: "v1",
    kind: "Event",
    plural: "events",
    shortNames: ["ev"],
    namespaced: true,
    ...converted(...EVENT_FIELDS, "metadata.namespace", "metadata.name"),
  }),
  builtin({
    group: "events.k8s.io",
    version: "v1",
    kind: "Event",
    storedAs: { group: "", plural: "events" },
    plural: "events",
    shortNames: ["ev"],
    namespaced: true,
    ...converted(
      "reason",
      "regarding.kind",
      "regarding.namespace",
      "regarding.name",
      "regarding.uid",
      "regarding.apiVersion",
      "regarding.resourceVersion",
      "regarding.fieldPath",
      "reportingController",
      "type",
      "metadata.namespace",
      "metadata.name",
    ),
  }),
  builtin({
    group: "apps",
    version: "v1",
    kind: "Deployment",
    plural: "deployments",
    shortNames: ["deploy"],
    categories: ["all"],
    namespaced: true,
    status: true,
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".spec.selector",
    },
    generation: true,
  }),
  builtin({ group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", namespaced: true }),
  builtin({
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    namespaced: false,
    status: true,
    generation: true,
  }),
  builtin({
    group: "admissionregistration.k8s.io",
    version: "v1",
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    categories: ["api-extensions"],
    namespaced: false,
    generation: true,
  }),
  builtin({
    group: "admissionregistration.k8s.io",
    version: "v1",
    kind: "MutatingWebhookConfiguration",
    plural: "mutatingwebhookconfigurations",
    categories: ["api-extensions"],
    namespaced: false,
    generation: true,
  }),
];
