/**
 * Enough OpenAPI for clients that read it: a v2 document and v3 per-group-version documents naming
 * every served kind (`x-kubernetes-group-version-kind`) with its paths and the `fieldValidation`
 * parameter, so `kubectl` uses server-side field validation; custom resources carry their schemas.
 */
import { isObject, type JsonObject } from "./internal/Json.ts";
import { apiVersionOf, type ResourceType } from "./ResourceType.ts";

const definitionName = (t: ResourceType, version: string): string => {
  const reversed = t.group === "" ? "io.k8s.api.core" : t.group.split(".").reverse().join(".");
  return `${reversed}.${version}.${t.kind}`;
};

const gvk = (t: ResourceType, version: string) => ({ group: t.group, version, kind: t.kind });

const schemaFor = (t: ResourceType, version: string): JsonObject => {
  const own = t.schemas.get(version);
  const base: JsonObject = isObject(own) ? { ...own } : { type: "object", additionalProperties: {} };
  return { ...base, "x-kubernetes-group-version-kind": [gvk(t, version)] };
};

const QUERY_PARAMS = ["dryRun", "fieldManager", "fieldValidation", "force", "pretty"];

const operation = (
  t: ResourceType,
  version: string,
  action: string,
  extra: ReadonlyArray<string> = [],
): JsonObject => ({
  operationId: `${action}${t.kind}`,
  "x-kubernetes-action": action,
  "x-kubernetes-group-version-kind": gvk(t, version),
  parameters: [...QUERY_PARAMS, ...extra].map((name) => ({
    name,
    in: "query",
    schema: { type: "string", uniqueItems: true },
  })),
  responses: { "200": { description: "OK" } },
});

const pathsFor = (t: ResourceType, version: string): JsonObject => {
  const prefix = t.group === "" ? `/api/${version}` : `/apis/${t.group}/${version}`;
  const collection = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
  return {
    [collection]: {
      get: operation(t, version, "list"),
      post: operation(t, version, "post"),
      delete: operation(t, version, "deletecollection"),
    },
    [`${collection}/{name}`]: {
      get: operation(t, version, "get"),
      put: operation(t, version, "put"),
      patch: operation(t, version, "patch"),
      delete: operation(t, version, "delete"),
    },
  };
};

/** `/openapi/v2`. */
export const v2 = (types: ReadonlyArray<ResourceType>, gitVersion: string): JsonObject => {
  const definitions: JsonObject = {};
  for (const t of types) for (const v of t.versions) definitions[definitionName(t, v)] = schemaFor(t, v);
  return { swagger: "2.0", info: { title: "Kubernetes", version: gitVersion }, paths: {}, definitions };
};

/** `/openapi/v3`: the index of group-version documents. */
export const v3Root = (types: ReadonlyArray<ResourceType>): JsonObject => {
  const paths: JsonObject = {};
  for (const t of types)
    for (const v of t.versions) {
      const key = t.group === "" ? `api/${v}` : `apis/${t.group}/${v}`;
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}` };
    }
  return { paths };
};

/** `/openapi/v3/api/v1` or `/openapi/v3/apis/{group}/{version}`. */
export const v3 = (
  types: ReadonlyArray<ResourceType>,
  group: string,
  version: string,
  gitVersion: string,
): JsonObject => {
  let paths: JsonObject = {};
  const schemas: JsonObject = {};
  for (const t of types) {
    paths = { ...paths, ...pathsFor(t, version) };
    schemas[definitionName(t, version)] = schemaFor(t, version);
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: gitVersion },
    paths,
    components: { schemas },
    "x-group-version": apiVersionOf(group, version),
  };
};
