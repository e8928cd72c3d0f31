/**
 * API discovery documents built from the served types: `/version`, `/api`, `/api/v1`, `/apis`,
 * `/apis/{group}`, `/apis/{group}/{version}`, and aggregated discovery (apidiscovery.k8s.io/v2)
 * when the client asks for it in `Accept`.
 */

import { versionPriority } from "./Crd.ts";
import type { JsonObject } from "./internal/Json.ts";
import { apiVersionOf, type ResourceType } from "./ResourceType.ts";

export const AGGREGATED_MEDIA = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** Whether the Accept header asks for aggregated discovery v2. */
export const wantsAggregated = (accept: string | undefined): boolean =>
  (accept ?? "").split(",").some((part) => {
    const params = part.split(";").map((p) => p.trim());
    return (
      params.includes("g=apidiscovery.k8s.io") &&
      params.includes("v=v2") &&
      params.includes("as=APIGroupDiscoveryList")
    );
  });

export const versionInfo = (gitVersion: string): JsonObject => {
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion);
  return {
    major: m?.[1] ?? "1",
    minor: m?.[2] ?? "0",
    gitVersion,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2025-01-01T00:00:00Z",
    goVersion: "go1.24.0",
    compiler: "gc",
    platform: "linux/amd64",
  };
};

const subresourcesOf = (
  t: ResourceType,
): Array<{ name: string; kind: string; group?: string; version?: string; verbs: Array<string> }> => [
  ...(t.status ? [{ name: "status", kind: t.kind, verbs: ["get", "patch", "update"] }] : []),
  ...(t.scale === undefined
    ? []
    : [
        {
          name: "scale",
          kind: "Scale",
          group: "autoscaling",
          version: "v1",
          verbs: ["get", "patch", "update"],
        },
      ]),
  ...t.extraSubresources.map((name) => ({ name, kind: t.kind, verbs: ["update"] })),
];

/** `/api/v1` or `/apis/{group}/{version}`. */
export const resourceList = (
  types: ReadonlyArray<ResourceType>,
  group: string,
  version: string,
): JsonObject => {
  const resources: Array<JsonObject> = [];
  for (const t of types) {
    resources.push({
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: [...t.verbs],
      ...(t.shortNames.length > 0 ? { shortNames: [...t.shortNames] } : {}),
      ...(t.categories.length > 0 ? { categories: [...t.categories] } : {}),
    });
    for (const s of subresourcesOf(t))
      resources.push({
        name: `${t.plural}/${s.name}`,
        singularName: "",
        namespaced: t.namespaced,
        ...(s.group === undefined ? {} : { group: s.group, version: s.version }),
        kind: s.kind,
        verbs: s.verbs,
      });
  }
  resources.sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
  return {
    kind: "APIResourceList",
    ...(group === "" ? {} : { apiVersion: "v1" }),
    groupVersion: apiVersionOf(group, version),
    resources,
  };
};

/** Versions of a group, preferred first. */
export const groupVersions = (types: ReadonlyArray<ResourceType>, group: string): Array<string> => {
  const versions = new Set<string>();
  for (const t of types) if (t.group === group) for (const v of t.versions) versions.add(v);
  return [...versions].sort(versionPriority);
};

export const apiGroup = (types: ReadonlyArray<ResourceType>, group: string): JsonObject | undefined => {
  const versions = groupVersions(types, group);
  const preferred = versions[0];
  if (preferred === undefined) return undefined;
  return {
    name: group,
    versions: versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${group}/${preferred}`, version: preferred },
  };
};

/** The apiserver's order of its built-in groups; other groups (CRDs) follow by name. */
const GROUP_ORDER = [
  "apiregistration.k8s.io",
  "apps",
  "events.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "networking.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "node.k8s.io",
  "discovery.k8s.io",
  "resource.k8s.io",
  "flowcontrol.apiserver.k8s.io",
];

const groupsOf = (types: ReadonlyArray<ResourceType>): Array<string> => {
  const seen = new Set<string>();
  for (const t of types) if (t.group !== "") seen.add(t.group);
  const rank = (g: string) => {
    const i = GROUP_ORDER.indexOf(g);
    return i < 0 ? GROUP_ORDER.length : i;
  };
  return [...seen].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
};

export const apiGroupList = (types: ReadonlyArray<ResourceType>): JsonObject => ({
  kind: "APIGroupList",
  apiVersion: "v1",
  groups: groupsOf(types).flatMap((g) => {
    const group = apiGroup(types, g);
    return group === undefined ? [] : [group];
  }),
});

export const apiVersions = (): JsonObject => ({
  kind: "APIVersions",
  versions: ["v1"],
  serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" }],
});

const aggregatedResource = (t: ResourceType, version: string): JsonObject => ({
  resource: t.plural,
  responseKind: { group: t.group, version, kind: t.kind },
  scope: t.namespaced ? "Namespaced" : "Cluster",
  singularResource: t.singular,
  verbs: [...t.verbs],
  ...(t.shortNames.length > 0 ? { shortNames: [...t.shortNames] } : {}),
  ...(t.categories.length > 0 ? { categories: [...t.categories] } : {}),
  ...(subresourcesOf(t).length > 0
    ? {
        subresources: subresourcesOf(t).map((s) => ({
          subresource: s.name,
          responseKind: { group: s.group ?? t.group, version: s.version ?? version, kind: s.kind },
          verbs: s.verbs,
        })),
      }
    : {}),
});

/** Aggregated discovery of the legacy group (`/api`) or of all named groups (`/apis`). */
export const aggregated = (types: ReadonlyArray<ResourceType>, legacy: boolean): JsonObject => {
  const groups = legacy ? [""] : groupsOf(types);
  return {
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    metadata: {},
    items: groups.map((g) => ({
      metadata: { ...(g === "" ? {} : { name: g }), creationTimestamp: null },
      versions: groupVersions(types, g).map((v) => ({
        version: v,
        resources: types
          .filter((t) => t.group === g && t.versions.includes(v))
          .map((t) => aggregatedResource(t, v)),
        freshness: "Current",
      })),
    })),
  };
};
