/**
 * Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, what `kubectl get`
 * asks for): custom resources' additionalPrinterColumns (Age by default) and the columns of the
 * built-in types (`BuiltinTables`), with ages rendered as the apiserver's HumanDuration; lists,
 * single objects and watch events (column definitions with the first event only).
 */
import * as BuiltinTables from "./BuiltinTables.ts";
import { isObject, type JsonObject, metaOf } from "./internal/Json.ts";
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

const partial = (obj: JsonObject, include: string): unknown =>
  include === "None"
    ? null
    : include === "Object"
      ? obj
      : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: metaOf(obj) };

/** The default printer of a built-in type without one of its own: Name and Age. */
const DEFAULT_PRINTER: BuiltinTables.Printer = {
  columns: [
    ["Name", "string", 0, "name"],
    ["Age", "string"],
  ],
  cells: (o, since) => [metaOf(o).name, since(metaOf(o).creationTimestamp)],
};

const describe = (name: string): string =>
  name === "Name" ? NAME_DESCRIPTION : name === "Age" ? AGE_DESCRIPTION : "";

/**
 * A Table of objects (a list's items, or one object). `headers: false` leaves the column
 * definitions out (`null`), as kube-apiserver does for every watch event after the first.
 *
 * @example
 * table(type, [obj], { resourceVersion: "5" }, now, "Metadata") // { kind: "Table", columnDefinitions: [...], rows: [...] }
 */
export const table = (
  type: ResourceType,
  objects: ReadonlyArray<JsonObject>,
  listMeta: JsonObject,
  now: number,
  includeObject: string,
  headers = true,
): JsonObject => {
  let columns: Array<JsonObject>;
  let cells: (o: JsonObject) => ReadonlyArray<unknown>;
  if (type.custom) {
    const name = { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 };
    const printer = type.printerColumns.length > 0 ? type.printerColumns : DEFAULT_CR_COLUMNS;
    columns = [name, ...printer.map(({ jsonPath: _j, ...c }) => c)];
    cells = (o) => [metaOf(o).name, ...printer.map((c) => cell(c.type, evaluate(o, c.jsonPath), now))];
  } else {
    const printer = BuiltinTables.printers[`${type.group}/${type.plural}`] ?? DEFAULT_PRINTER;
    columns = printer.columns.map(([name, columnType, priority, format]) => ({
      name,
      type: columnType,
      format: format ?? "",
      description: describe(name),
      priority: priority ?? 0,
    }));
    cells = (o) => printer.cells(o, (timestamp) => age(timestamp, now));
  }
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: headers ? columns : null,
    rows: objects.map((o) => ({ cells: cells(o), object: partial(o, includeObject) })),
  };
};
