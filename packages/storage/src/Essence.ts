/**
 * The essence of an object (docs/behaviour/causes.md#essence): the part of its body that handlers care about and that
 * the diff-base storages persist as the last-handled configuration. System metadata, status and
 * other Kopf-based operators' annotations are left out, so their changes cause no handling.
 */
import { FieldPath, type FieldSpec, Json, type RawBody } from "@kopf/structs";
import { detectMarkedPrefixes, isEmptyValue, removeEmptyStanzas } from "./internal/conventions.ts";
import { cherrypick, ensure, isMutableObject, type MutableObject, put, remove } from "./internal/dicts.ts";

/** kubectl's own last-applied state: never part of the essence. */
export const KUBECTL_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** What to add back to, and take out of, the default essence. */
export interface BuildOptions {
  /** Fields to keep even if normally dropped (e.g. `status.phase` watched by a handler). */
  readonly extraFields?: Iterable<FieldSpec> | undefined;
  /** Fields to drop (the storage's `ignoredFields`), with emptied parents. */
  readonly ignoredFields?: Iterable<FieldSpec> | undefined;
}

/** The top-level fields left out of the essence (labels and annotations come back). */
const DROPPED: ReadonlySet<string> = new Set(["apiVersion", "kind", "metadata", "status"]);

const LABELS: FieldPath.FieldPath = ["metadata", "labels"];
const ANNOTATIONS: FieldPath.FieldPath = ["metadata", "annotations"];

/** Whether an annotation is left out of the essence: another Kopf-based operator's, or kubectl's. */
const isLeftOut = (key: string, ignoredPrefixes: ReadonlySet<string>): boolean => {
  const slash = key.indexOf("/");
  return (slash >= 0 && ignoredPrefixes.has(key.slice(0, slash))) || key === KUBECTL_LAST_APPLIED;
};

/** A copy of the annotations without those left out (keys holding `undefined` are absent). */
const keptAnnotations = (annotations: { readonly [key: string]: unknown }): MutableObject => {
  const present = Object.keys(annotations).filter((key) => annotations[key] !== undefined);
  const ignoredPrefixes = detectMarkedPrefixes(present);
  const kept: MutableObject = {};
  for (const key of present)
    if (!isLeftOut(key, ignoredPrefixes)) put(kept, key, Json.deepCopy(annotations[key]));
  return kept;
};

/**
 * Build the essence of a body, as Kopf's base `DiffBaseStorage.build`: a deep copy without
 * `apiVersion`, `kind`, `metadata` and `status`; labels and annotations copied back, except the
 * annotations of Kopf-marked prefixes and kubectl's last-applied configuration; extra fields
 * copied back; empty stanzas removed; ignored fields removed. The body is never modified.
 *
 * @example
 * ```ts
 * Essence.build({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "1" } })
 * // { data: { a: "1" } }
 * ```
 */
export const build = (body: RawBody, options: BuildOptions = {}): Json.JsonObject => {
  // Only what is kept is copied: metadata (with its managed fields) and status are often most of
  // the body, and only labels and annotations come back from them.
  // (A loop rather than an object rest pattern, which V8 runs through a slow generic path.)
  const essence: MutableObject = {};
  for (const key of Object.keys(body)) {
    if (DROPPED.has(key)) continue;
    const value = (body as MutableObject)[key];
    if (value !== undefined) put(essence, key, Json.deepCopy(value));
  }

  // Labels and annotations come back into a `metadata` made only for what is kept: an empty
  // stanza made and then deleted (below) would leave the essence in V8's slow dictionary mode
  // for every diff of it, and it is built for every event.
  const labels = FieldPath.resolve(body, LABELS);
  if (!isEmptyValue(labels)) ensure(essence, LABELS, Json.deepCopy(labels));
  const annotations = FieldPath.resolve(body, ANNOTATIONS);
  if (Json.isObject(annotations)) {
    // Copied without the annotations left out (rather than copied whole, then deleted from).
    const kept = keptAnnotations(annotations);
    if (!isEmptyValue(kept)) ensure(essence, ANNOTATIONS, kept);
  } else if (annotations !== undefined) {
    ensure(essence, ANNOTATIONS, Json.deepCopy(annotations));
    const copied = (essence.metadata as MutableObject).annotations;
    if (isMutableObject(copied)) {
      // Not a plain object (a class instance, shared by the copy): left out in place, as before.
      const ignoredPrefixes = detectMarkedPrefixes(Object.keys(copied));
      for (const key of Object.keys(copied)) if (isLeftOut(key, ignoredPrefixes)) delete copied[key];
    }
  }

  cherrypick(
    body,
    essence,
    [...(options.extraFields ?? [])].map((spec) => FieldPath.parse(spec)),
  );
  // Deletes only a stanza that is empty (an extra field's, or a non-object annotations value).
  removeEmptyStanzas(essence);

  for (const spec of options.ignoredFields ?? []) remove(essence, FieldPath.parse(spec));
  return essence as Json.JsonObject;
};
