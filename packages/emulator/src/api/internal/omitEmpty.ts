/**
 * What kube-apiserver's typed decoding of a body loses: the fields Go encodes with `omitempty`
 * (ObjectMeta's maps and lists, a ConfigMap's or Secret's data), when empty or null, are not
 * there once decoded, so the emulator drops them from every object it is given. Part of the
 * scheme defaults (`Defaults.ts`).
 */
import type { ResourceType } from "../ResourceType.ts";
import { isObject, type JsonObject } from "./Json.ts";

const isEmptyValue = (value: unknown): boolean =>
  value === null ||
  (Array.isArray(value) && value.length === 0) ||
  (isObject(value) && Object.keys(value).length === 0);

/** Fields Go encodes with `omitempty`: an empty map or list (or null) decodes to nothing. */
const OMIT_EMPTY_META = ["labels", "annotations", "ownerReferences", "finalizers"];
const OMIT_EMPTY: Readonly<Record<string, ReadonlyArray<string>>> = {
  "/configmaps": ["data", "binaryData"],
  "/secrets": ["data", "stringData"],
};

/**
 * Drops what the apiserver's typed decoding loses: empty `omitempty` maps and lists (runs on every
 * write). Copies only what it changes; answers `obj` itself when nothing is dropped.
 *
 * @example
 * ```ts
 * omitEmpty(configMapType, { metadata: { name: "x", labels: {} }, data: {} }) // { metadata: { name: "x" } }
 * ```
 */
export const omitEmpty = (type: ResourceType, obj: JsonObject): JsonObject => {
  let out = obj;
  const fields = type.custom ? undefined : OMIT_EMPTY[`${type.group}/${type.plural}`];
  if (fields !== undefined)
    for (const f of fields)
      if (Object.hasOwn(out, f) && isEmptyValue(out[f])) {
        if (out === obj) out = { ...obj };
        delete out[f];
      }
  const meta = out.metadata;
  if (!isObject(meta)) return out;
  let m = meta;
  for (const f of OMIT_EMPTY_META)
    if (Object.hasOwn(m, f) && isEmptyValue(m[f])) {
      if (m === meta) m = { ...meta };
      delete m[f];
    }
  return m === meta ? out : { ...out, metadata: m };
};
