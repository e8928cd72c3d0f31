/**
 * `metadata.managedFields`: which manager owns which fields. Every write records its manager
 * (operation `Update`, or `Apply` for server-side apply); a field changed by one manager leaves the
 * sets of the others, and fields that disappear leave every set. An existing object without
 * managedFields gets none from non-apply writes; its first apply attributes the fields it already
 * has to `before-first-apply`. A main-resource write may reset them (`[]` or `[{}]`) or replace
 * them with valid entries of its own.
 */
import * as FieldChanges from "./FieldChanges.ts";
import * as FieldSet from "./FieldSet.ts";
import type { Resolved } from "./internal/Core.ts";
import { asObject, isObject, type JsonObject, metaOf } from "./internal/Json.ts";
import { formatTime } from "./internal/Time.ts";
import { apiVersionOf } from "./ResourceType.ts";
import * as TypeShape from "./TypeShape.ts";

export interface Entry {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly apiVersion: string;
  readonly time: string;
  readonly subresource: string | undefined;
  readonly fields: FieldSet.FieldSet;
}

const decoded = new WeakMap<ReadonlyArray<unknown>, ReadonlyArray<Entry>>();

/**
 * The entries the last {@link RECENT} encoded managedFields came from (oldest first): the next
 * write to a recently written object finds them decoded, and an object written once keeps none.
 */
const recent = new Map<ReadonlyArray<unknown>, ReadonlyArray<Entry>>();
const RECENT = 1024;

const remember = (raw: ReadonlyArray<unknown>, entries: ReadonlyArray<Entry>): void => {
  recent.set(raw, entries);
  if (recent.size > RECENT) {
    const oldest = recent.keys().next().value;
    if (oldest !== undefined) recent.delete(oldest);
  }
};

/** The entries of an object's managedFields (cached per stored array: stored objects are never mutated). */
export const decode = (obj: JsonObject): Array<Entry> => {
  const raw = metaOf(obj).managedFields;
  if (!Array.isArray(raw)) return [];
  const cached = recent.get(raw) ?? decoded.get(raw);
  if (cached !== undefined) return [...cached];
  const entries = decodeEntries(raw);
  decoded.set(raw, entries);
  return [...entries];
};

const decodeEntries = (raw: ReadonlyArray<unknown>): Array<Entry> =>
  raw.filter(isObject).map((e) => ({
    manager: typeof e.manager === "string" ? e.manager : "",
    operation: e.operation === "Apply" ? "Apply" : "Update",
    apiVersion: typeof e.apiVersion === "string" ? e.apiVersion : "",
    time: typeof e.time === "string" ? e.time : "",
    subresource: typeof e.subresource === "string" && e.subresource !== "" ? e.subresource : undefined,
    fields: FieldSet.fromFieldsV1(e.fieldsV1),
  }));

const seconds = (time: string): number => {
  const t = Date.parse(time);
  return Number.isNaN(t) ? 0 : Math.floor(t / 1000);
};

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Each entry's time in whole seconds, parsed once per entry (entries are reused from write to write). */
const secondsOf = new WeakMap<Entry, number>();
const at = (entry: Entry): number => {
  let value = secondsOf.get(entry);
  if (value === undefined) {
    value = seconds(entry.time);
    secondsOf.set(entry, value);
  }
  return value;
};

const order = (p: Entry, q: Entry): number =>
  cmp(p.operation, q.operation) ||
  at(p) - at(q) ||
  cmp(p.manager, q.manager) ||
  cmp(p.apiVersion, q.apiVersion) ||
  cmp(p.subresource ?? "", q.subresource ?? "");

/**
 * Entries in the apiserver's order of managedFields: operation, time (seconds), manager, apiVersion,
 * subresource. Usually they already are (a write changes one entry): then nothing is sorted.
 */
const sorted = (entries: Array<Entry>): Array<Entry> => {
  for (let i = 1; i < entries.length; i++)
    if (order(entries[i - 1] as Entry, entries[i] as Entry) > 0) return entries.sort(order);
  return entries;
};

/**
 * The managedFields of `entries`, each entry's keys in the order the apiserver writes them: a
 * custom resource's sorted (it is a Go map there), a built-in one's in Go struct order — so that
 * storing the entries does not reorder (copy) them and the decoding cache keeps hitting.
 */
export const encode = (entries: ReadonlyArray<Entry>, custom: boolean): Array<JsonObject> => {
  const kept = sorted(entries.filter((e) => e.fields.size > 0));
  const encoded = kept.map((e): JsonObject => {
    const fieldsV1 = FieldSet.toFieldsV1(e.fields);
    return custom
      ? {
          apiVersion: e.apiVersion,
          fieldsType: "FieldsV1",
          fieldsV1,
          ...(e.manager === "" ? {} : { manager: e.manager }),
          operation: e.operation,
          ...(e.subresource === undefined ? {} : { subresource: e.subresource }),
          ...(e.time === "" ? {} : { time: e.time }),
        }
      : {
          ...(e.manager === "" ? {} : { manager: e.manager }),
          operation: e.operation,
          apiVersion: e.apiVersion,
          ...(e.time === "" ? {} : { time: e.time }),
          fieldsType: "FieldsV1",
          fieldsV1,
          ...(e.subresource === undefined ? {} : { subresource: e.subresource }),
        };
  });
  // They decode to the very entries they came from.
  remember(encoded, kept);
  return encoded;
};

export const sameEntry = (
  e: Entry,
  manager: string,
  operation: string,
  subresource: string | undefined,
): boolean => e.manager === manager && e.operation === operation && e.subresource === subresource;

/** The fields of a write's scope: status only for `/status`, everything but status for the main resource when status is a subresource. */
export const scoped = (
  set: FieldSet.FieldSet,
  resolved: Pick<Resolved, "type" | "version">,
  subresource: string | undefined,
): FieldSet.FieldSet => {
  if (!resolved.type.status) return set;
  const inStatus = (p: string) => p === "f:status" || p.startsWith("f:status\n");
  return new Set([...set].filter((p) => (subresource === "status" ? inStatus(p) : !inStatus(p))));
};

/** `obj` with `entries` as its managedFields (see {@link encode} for `custom`). */
export const withEntries = (obj: JsonObject, entries: ReadonlyArray<Entry>, custom: boolean): JsonObject => {
  const encoded = encode(entries, custom);
  const meta = { ...metaOf(obj) };
  if (encoded.length === 0) delete meta.managedFields;
  else meta.managedFields = encoded;
  return { ...obj, metadata: meta };
};

/** Whether written managedFields ask for a reset: an empty list, or one empty entry. */
const isReset = (given: ReadonlyArray<unknown>): boolean =>
  given.length === 0 ||
  (given.length === 1 &&
    isObject(given[0]) &&
    Object.values(given[0]).every(
      (v) => v === null || v === "" || (isObject(v) && Object.keys(v).length === 0),
    ));

/** Whether written managedFields decode (kube-apiserver falls back to the live ones when not). */
const decodable = (given: ReadonlyArray<unknown>): boolean =>
  given.every(
    (e) =>
      isObject(e) && e.fieldsType === "FieldsV1" && (e.operation === "Apply" || e.operation === "Update"),
  );

/**
 * The entries a write starts from, as kube-apiserver picks them: a subresource write's are the live
 * object's; a main-resource write may reset them (an empty list or one empty entry) or replace them
 * (valid entries owning something); otherwise they are the live object's.
 */
const baseEntries = (
  old: JsonObject | undefined,
  next: JsonObject,
  subresource: string | undefined,
): Array<Entry> => {
  const live = old === undefined ? [] : decode(old);
  const given = metaOf(next).managedFields;
  if (
    subresource !== undefined ||
    !Array.isArray(given) ||
    (old !== undefined && given === metaOf(old).managedFields)
  )
    return live;
  if (isReset(given)) return [];
  if (!decodable(given)) return live;
  const entries = decodeEntries(given);
  return entries.some((e) => e.fields.size > 0) ? entries : live;
};

/**
 * Records a non-apply write by `manager`: it gains the fields it changed, the others lose them.
 *
 * @example
 * track(undefined, created, "kubectl-create", "Update", undefined, now, resolved) // managedFields with one entry
 */
export const track = (
  old: JsonObject | undefined,
  next: JsonObject,
  manager: string,
  operation: "Update",
  subresource: string | undefined,
  now: number,
  resolved: Pick<Resolved, "type" | "version">,
): JsonObject => {
  if (subresource === "scale") return next;
  const oldEntries = baseEntries(old, next, subresource);
  // kube-apiserver's field manager never starts tracking on a non-apply write: an existing
  // object without managedFields (or whose write reset them) stays without; only creates and
  // server-side apply start it.
  if (old !== undefined && oldEntries.every((e) => e.fields.size === 0))
    return withEntries(next, [], resolved.type.custom);
  const shape = TypeShape.shapeOf(resolved.type);
  const { changed, removed } =
    old === undefined
      ? { changed: FieldSet.of(next, shape), removed: new Set<string>() }
      : FieldChanges.changes(old, next, shape);
  const mine = scoped(changed, resolved, subresource);
  if (mine.size === 0 && removed.size === 0) return withEntries(next, oldEntries, resolved.type.custom);
  const lost = (p: string) => mine.has(p) || removed.has(p);
  const entries = oldEntries.map((e) => {
    if (sameEntry(e, manager, operation, subresource)) return e;
    // Entries that lose nothing keep their set (and its cached FieldsV1 encoding).
    for (const p of e.fields)
      if (lost(p)) return { ...e, fields: new Set([...e.fields].filter((q) => !lost(q))) };
    return e;
  });
  const idx = entries.findIndex((e) => sameEntry(e, manager, operation, subresource));
  const previous = idx >= 0 ? (entries[idx] as Entry).fields : new Set<string>();
  let fields = previous;
  if (removed.size > 0 || [...mine].some((p) => !previous.has(p))) {
    fields = new Set([...previous].filter((p) => !removed.has(p)));
    for (const p of mine) fields.add(p);
  }
  const entry: Entry = {
    manager,
    operation,
    apiVersion: apiVersionOf(resolved.type.group, resolved.version),
    time: formatTime(now),
    subresource,
    fields,
  };
  if (idx >= 0) entries[idx] = entry;
  else entries.push(entry);
  return withEntries(next, entries, resolved.type.custom);
};

/** The manager kube-apiserver names as the owner of an object's fields when it is first applied to. */
export const BEFORE_FIRST_APPLY = "before-first-apply";

/**
 * The entries server-side apply starts from: the object's own, or, for an object without any,
 * one `Update` entry by {@link BEFORE_FIRST_APPLY} owning every field it has (in the write's scope).
 *
 * @example
 * entriesForApply(untracked, resolved, undefined, now) // [{ manager: "before-first-apply", ... }]
 */
export const entriesForApply = (
  current: JsonObject,
  resolved: Pick<Resolved, "type" | "version">,
  subresource: string | undefined,
  now: number,
): Array<Entry> => {
  const entries = decode(current).filter((e) => e.fields.size > 0);
  if (entries.length > 0) return entries;
  const fields = scoped(FieldSet.of(current, TypeShape.shapeOf(resolved.type)), resolved, subresource);
  if (fields.size === 0) return [];
  return [
    {
      manager: BEFORE_FIRST_APPLY,
      operation: "Update",
      apiVersion: apiVersionOf(resolved.type.group, resolved.version),
      time: formatTime(now),
      subresource,
      fields,
    },
  ];
};

/** The managedFields of an object as a plain array (for tests and SSA). */
export const raw = (obj: JsonObject): ReadonlyArray<JsonObject> => {
  const m = asObject(obj.metadata).managedFields;
  return Array.isArray(m) ? m.filter(isObject) : [];
};
