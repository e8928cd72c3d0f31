/**
 * Kopf's storage conventions shared by the annotation storages and the essence: detecting the
 * annotation prefixes of Kopf-based operators, the `kopf-managed` marker, and the cleanup of
 * unwanted annotations and empty stanzas (all in place, on caller-owned copies).
 */
import { Body, type RawBody } from "@kopf/structs";
import { ensure, isMutableObject, lookup, type MutableObject } from "./dicts.ts";

/** The marker name that brands a prefix as used by a Kopf-based operator. */
export const MARKER_NAME = "kopf-managed";

const KNOWN_PREFIXES: ReadonlyArray<string> = ["kopf.zalando.org"];
const KNOWN_SUFFIXES: ReadonlyArray<string> = KNOWN_PREFIXES.map((known) => `.${known}`);

/**
 * Prefixes of annotation keys managed by Kopf-based operators: those with a `{prefix}/kopf-managed`
 * marker, `kopf.zalando.org` itself, and any of its subdomains.
 */
export const detectMarkedPrefixes = (keys: Iterable<string>): ReadonlySet<string> => {
  const prefixes = new Set<string>();
  for (const key of keys) {
    const slash = key.indexOf("/");
    if (slash < 0) continue;
    const prefix = key.slice(0, slash);
    if (
      (key.length - slash - 1 === MARKER_NAME.length && key.endsWith(MARKER_NAME)) ||
      KNOWN_PREFIXES.includes(prefix) ||
      KNOWN_SUFFIXES.some((suffix) => prefix.endsWith(suffix))
    ) {
      prefixes.add(prefix);
    }
  }
  return prefixes;
};

/**
 * Write `{prefix}/kopf-managed: "yes"` into the patch unless the prefix starts with `kopf.` or
 * the marker is already in the body or the patch, so that other Kopf-based operators leave
 * this operator's annotations out of their essences.
 */
export const storeMarker = (prefix: string, patch: MutableObject, body: RawBody): void => {
  if (!prefix || prefix.startsWith("kopf.")) return;
  const marker = `${prefix}/${MARKER_NAME}`;
  if (Object.hasOwn(Body.annotations(body), marker)) return;
  if (lookup(patch, ["metadata", "annotations", marker]) !== undefined) return;
  ensure(patch, ["metadata", "annotations", marker], "yes");
};

/** Remove the given annotation keys from a mutable essence. */
export const removeAnnotations = (essence: MutableObject, keys: ReadonlySet<string>): void => {
  const metadata = essence.metadata;
  if (!isMutableObject(metadata) || !isMutableObject(metadata.annotations)) return;
  const annotations = metadata.annotations;
  for (const key of Object.keys(annotations)) if (keys.has(key)) delete annotations[key];
};

/** Whether a stanza is empty as {@link removeEmptyStanzas} sees it (Python's falsiness). */
export const isEmptyValue = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  value === false ||
  value === 0 ||
  value === "" ||
  (Array.isArray(value) && value.length === 0) ||
  (isMutableObject(value) && Object.keys(value).length === 0);

/** Whether {@link removeEmptyStanzas} would change the essence. */
export const hasEmptyStanzas = (essence: MutableObject): boolean => {
  const metadata = essence.metadata;
  if (isMutableObject(metadata)) {
    if (Object.hasOwn(metadata, "annotations") && isEmptyValue(metadata.annotations)) return true;
    if (Object.hasOwn(metadata, "labels") && isEmptyValue(metadata.labels)) return true;
  }
  if (Object.hasOwn(essence, "metadata") && isEmptyValue(essence.metadata)) return true;
  return Object.hasOwn(essence, "status") && isEmptyValue(essence.status);
};

/**
 * Remove empty `metadata.annotations`, `metadata.labels`, then an empty `metadata`, and an
 * empty `status` ("empty" as Python's falsiness: `{}`, `[]`, `""`, `0`, `false`, `null`).
 */
export const removeEmptyStanzas = (essence: MutableObject): void => {
  const metadata = essence.metadata;
  if (isMutableObject(metadata)) {
    if (Object.hasOwn(metadata, "annotations") && isEmptyValue(metadata.annotations)) {
      delete metadata.annotations;
    }
    if (Object.hasOwn(metadata, "labels") && isEmptyValue(metadata.labels)) delete metadata.labels;
  }
  if (Object.hasOwn(essence, "metadata") && isEmptyValue(essence.metadata)) delete essence.metadata;
  if (Object.hasOwn(essence, "status") && isEmptyValue(essence.status)) delete essence.status;
};
