/**
 * Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, what `kubectl get`
 * asks for): custom resources' additionalPrinterColumns (Age by default) and the columns of the
 * built-in types, with ages rendered as the apiserver's HumanDuration.
 */
import { getPath, isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import type { ResourceType } from "./ResourceType.ts";

export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
  readonly jsonPath: string;
}

/** Whether the Accept header asks for a meta.k8s.io Table. */
export const wantsTable = (accept: string | undefined): boolean =>
  (accept ?? "").split(",").some((part) => {
    const params = part.split(";").map((p) => p.trim());
    return (
      params.includes("as=Table") &&
      params.includes("g=meta.k8s.io") &&
      (params.includes("v=v1") || params.includes("v=v1beta1"))
    );
  });

/** Go's duration.HumanDuration of a span in milliseconds. */
export const humanDuration = (millis: number): string => {
  const seconds = Math.trunc(millis / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
};

const age = (timestamp: unknown, now: number): string => {
  const t = typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(t) ? "<unknown>" : humanDuration(now - t);
};

const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** The default columns of a custom resource without printer columns. */
export const DEFAULT_CR_COLUMNS: ReadonlyArray<PrinterColumn> = [
  {
    name: "Age",
    type: "date",
    format: "",
    description: AGE_DESCRIPTION,
    priority: 0,
    jsonPath: ".metadata.creationTimestamp",
  },
];

/** Evaluates the simple JSONPaths printer columns use (`.a.b`, `.a[0].b`, `.a['x.y']`). */
const evaluate = (obj: unknown, jsonPath: string): unknown => {
  const parts: Array<string> = [];
  for (const m of jsonPath.matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']+)'\]|\["([^"]+)"\]/g))
    parts.push((m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
  let cur = obj;
  for (const p of parts) {
    if (Array.isArray(cur) && /^\d+$/.test(p)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
};

const cell = (type: string, value: unknown, now: number): unknown => {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      return typeof value === "string"
        ? Number.isNaN(Date.parse(value))
          ? "<invalid>"
          : age(value, now)
        : null;
    default:
      return typeof value === "string" ? value : JSON.stringify(value);
  }
};

type Builtin = {
  readonly columns: ReadonlyArray<[string, string, number?]>;
  readonly cells: (o: JsonObject, now: number) => Array<unknown>;
  /** Whether the table ends without the Age column. */
  readonly noAge?: boolean;
};

const count = (v: unknown): number => (isObject(v) ? Object.keys(v).length : Array.isArray(v) ? v.length : 0);

const BUILTIN_TABLES: Readonly<Record<string, Builtin>> = {
  "/configmaps": { columns: [["Data", "integer"]], cells: (o) => [count(o.data) + count(o.binaryData)] },
  "/secrets": {
    columns: [
      ["Type", "string"],
      ["Data", "integer"],
    ],
    cells: (o) => [o.type ?? "", count(o.data)],
  },
  "/namespaces": {
    columns: [["Status", "string"]],
    cells: (o) => [str(getPath(o, ["status", "phase"])) ?? ""],
  },
  "/serviceaccounts": { columns: [["Secrets", "string"]], cells: (o) => [count(o.secrets)] },
  "coordination.k8s.io/leases": {
    columns: [["Holder", "string"]],
    cells: (o) => [str(getPath(o, ["spec", "holderIdentity"])) ?? ""],
  },
  "apps/deployments": {
    columns: [
      ["Ready", "string"],
      ["Up-to-date", "string"],
      ["Available", "string"],
    ],
    cells: (o) => {
      const s = (k: string) => Number(getPath(o, ["status", k]) ?? 0);
      return [
        `${s("readyReplicas")}/${Number(getPath(o, ["spec", "replicas"]) ?? 0)}`,
        s("updatedReplicas"),
        s("availableReplicas"),
      ];
    },
  },
  "apiextensions.k8s.io/customresourcedefinitions": {
    columns: [["Created At", "date"]],
    cells: (o) => [metaOf(o).creationTimestamp ?? null],
    noAge: true,
  },
  "admissionregistration.k8s.io/validatingwebhookconfigurations": {
    columns: [["Webhooks", "integer"]],
    cells: (o) => [count(o.webhooks)],
  },
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": {
    columns: [["Webhooks", "integer"]],
    cells: (o) => [count(o.webhooks)],
  },
};

const partial = (obj: JsonObject, include: string): unknown =>
  include === "None"
    ? null
    : include === "Object"
      ? obj
      : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: metaOf(obj) };

/**
 * A Table of objects (a list's items, or one object).
 *
 * @example
 * table(type, [obj], "5", now, "Metadata") // { kind: "Table", columnDefinitions: [...], rows: [...] }
 */
export const table = (
  type: ResourceType,
  objects: ReadonlyArray<JsonObject>,
  listMeta: JsonObject,
  now: number,
  includeObject: string,
): JsonObject => {
  const name = { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 };
  let columns: Array<JsonObject>;
  let cells: (o: JsonObject) => Array<unknown>;
  const builtin = type.custom ? undefined : BUILTIN_TABLES[`${type.group}/${type.plural}`];
  if (type.custom) {
    const printer = type.printerColumns.length > 0 ? type.printerColumns : DEFAULT_CR_COLUMNS;
    columns = [name, ...printer.map(({ jsonPath: _j, ...c }) => c)];
    cells = (o) => [metaOf(o).name, ...printer.map((c) => cell(c.type, evaluate(o, c.jsonPath), now))];
  } else {
    const extra = builtin?.columns ?? [];
    columns = [
      name,
      ...extra.map(([n, t, p]) => ({ name: n, type: t, format: "", description: "", priority: p ?? 0 })),
      ...(builtin?.noAge === true
        ? []
        : [{ name: "Age", type: "string", format: "", description: AGE_DESCRIPTION, priority: 0 }]),
    ];
    cells = (o) => [
      metaOf(o).name,
      ...(builtin?.cells(o, now) ?? []),
      ...(builtin?.noAge === true ? [] : [age(metaOf(o).creationTimestamp, now)]),
    ];
  }
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: columns,
    rows: objects.map((o) => ({ cells: cells(o), object: partial(o, includeObject) })),
  };
};
