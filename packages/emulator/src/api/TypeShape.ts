/**
 * The shape of a resource type as server-side apply sees it: which lists are maps (by merge
 * keys), sets or atomic, which objects are atomic, and which object nodes an update owns — from
 * the built-in types' merge keys or a CRD schema's `x-kubernetes-list-*` and `map-type` markers.
 * FieldSet.ts walks objects with it.
 */
import { isObject, type JsonObject } from "./internal/Json.ts";
import type { ResourceType } from "./ResourceType.ts";
import { strategyFor } from "./StrategicMergePatch.ts";

export type ListShape =
  | { readonly kind: "map"; readonly keys: ReadonlyArray<string> }
  | { readonly kind: "set" }
  | { readonly kind: "atomic" };

/** Knowledge of a type's lists and objects, by the field names on the way (list items skipped). */
export interface Shape {
  readonly list: (names: ReadonlyArray<string>) => ListShape;
  /** Whether an object node is owned itself when an update adds it (maps, pointer structs, any object of a custom resource). */
  readonly isMember: (names: ReadonlyArray<string>, inListItem: boolean) => boolean;
  /** Whether an object is atomic (owned as a whole, like a LabelSelector). */
  readonly isAtomic: (names: ReadonlyArray<string>) => boolean;
}

/**
 * Built-in fields present in the JSON of every zero-valued typed object (non-pointer structs and
 * slices without omitempty): an update never "adds" them, so they are not owned as nodes.
 */
const ALWAYS_PRESENT = new Set([
  "metadata",
  "spec",
  "status",
  "template",
  "strategy",
  "resources",
  "names",
  "acceptedNames",
  "containers",
  "versions",
]);

/** LabelSelectors are atomic structs in the built-in types. */
const ATOMIC_OBJECTS = new Set([
  "namespaceSelector",
  "objectSelector",
  "involvedObject",
  "regarding",
  "related",
]);

const metaList = (names: ReadonlyArray<string>): ListShape | undefined => {
  if (names.length === 2 && names[0] === "metadata") {
    if (names[1] === "finalizers") return { kind: "set" };
    if (names[1] === "ownerReferences") return { kind: "map", keys: ["uid"] };
  }
  return undefined;
};

const schemaAt = (schema: JsonObject | undefined, names: ReadonlyArray<string>): JsonObject | undefined => {
  let cur = schema;
  for (const n of names) {
    if (cur === undefined) return undefined;
    if (cur.type === "array" && isObject(cur.items)) cur = cur.items;
    const props = isObject(cur.properties) ? cur.properties : undefined;
    const next = props?.[n] ?? (isObject(cur.additionalProperties) ? cur.additionalProperties : undefined);
    cur = isObject(next) ? next : undefined;
  }
  if (cur !== undefined && cur.type === "array" && names.length === 0) return cur;
  return cur;
};

/** The shape of a type: merge keys of built-ins, or the x-kubernetes-list-* markers of a CRD schema. */
export const shapeOf = (type: ResourceType): Shape => {
  if (!type.custom)
    return {
      list: (names) => {
        const m = metaList(names);
        if (m !== undefined) return m;
        // NamespaceSpec.finalizers is an atomic list.
        if (
          type.plural === "namespaces" &&
          names.length === 2 &&
          names[0] === "spec" &&
          names[1] === "finalizers"
        )
          return { kind: "atomic" };
        const s = strategyFor(names[names.length - 2] ?? "", names[names.length - 1] ?? "");
        return s === undefined
          ? { kind: "atomic" }
          : s.kind === "set"
            ? { kind: "set" }
            : {
                kind: "map",
                // Service ports are keyed by port and protocol in the apply schema.
                keys: s.key === "port" ? ["port", "protocol"] : [s.key],
              };
      },
      isMember: (names, inItem) =>
        inItem ||
        !(
          ALWAYS_PRESENT.has(names[names.length - 1] ?? "") ||
          // Event.source is a non-pointer struct: always in the typed object, never owned as a node.
          (type.plural === "events" && names.length === 1 && names[0] === "source")
        ),
      isAtomic: (names) => {
        const last = names[names.length - 1] ?? "";
        return (
          ATOMIC_OBJECTS.has(last) ||
          (last === "selector" && names.length === 2 && (type.group === "apps" || type.plural === "services"))
        );
      },
    };
  const schema = type.schemas.get(type.storageVersion);
  return {
    list: (names) => {
      const m = metaList(names);
      if (m !== undefined) return m;
      const s = schemaAt(schema, names);
      const listType = s?.["x-kubernetes-list-type"];
      if (listType === "set") return { kind: "set" };
      if (listType === "map") {
        const keys = Array.isArray(s?.["x-kubernetes-list-map-keys"])
          ? (s["x-kubernetes-list-map-keys"] as Array<string>)
          : [];
        return { kind: "map", keys };
      }
      return { kind: "atomic" };
    },
    isMember: (names) => !(names.length === 1 && names[0] === "metadata"),
    isAtomic: (names) => schemaAt(schema, names)?.["x-kubernetes-map-type"] === "atomic",
  };
};
