/**
 * The system-maintained parts of stored objects, as the apiserver's registry strategies set them:
 * uid, creationTimestamp, generateName, generation, status handling of the status subresource,
 * and the serving form of an object (apiVersion of the requested version).
 */
import * as Defaults from "./Defaults.ts";
import * as EventsConversion from "./EventsConversion.ts";
import { asObject, deepEqual, type JsonObject, metaOf } from "./internal/Json.ts";
import { formatTime } from "./internal/Time.ts";
import { apiVersionOf, type ResourceType } from "./ResourceType.ts";

const GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** 32 random bits as 8 hex digits. */
const word = (random: () => number): string =>
  Math.floor(random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, "0");

/** A random RFC 4122 version 4 uid (four draws of 32 bits: this runs for every create). */
export const makeUid = (random: () => number): string => {
  const a = word(random);
  const b = word(random);
  const c = word(random);
  const d = word(random);
  const variant = ((Number.parseInt(c[0] as string, 16) & 0x3) | 0x8).toString(16);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
};

/** `generateName` plus five random characters, the prefix cut to keep the name within 63. */
export const generateName = (prefix: string, random: () => number): string => {
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  let suffix = "";
  for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[Math.floor(random() * GENERATE_ALPHABET.length)];
  return base + suffix;
};

/** The object as stored: apiVersion of the storage version and the type's kind. */
export const toStorage = (type: ResourceType, obj: JsonObject): JsonObject =>
  type.storedAs !== undefined
    ? EventsConversion.toCore(obj)
    : { ...obj, apiVersion: apiVersionOf(type.group, type.storageVersion), kind: type.kind };

/** The object as served in `version` (versions of a custom resource differ only in apiVersion). */
export const serve = (type: ResourceType, version: string, obj: JsonObject): JsonObject =>
  type.storedAs !== undefined
    ? EventsConversion.fromCore(obj, version)
    : version === type.storageVersion
      ? obj
      : { ...obj, apiVersion: apiVersionOf(type.group, version) };

/**
 * A decoded create body as admission first sees it: storage apiVersion and kind, the URL's
 * namespace, and scheme defaults — no system fields yet.
 */
export const decodeForCreate = (
  type: ResourceType,
  namespace: string | undefined,
  body: JsonObject,
): JsonObject => {
  const meta: JsonObject = { ...metaOf(body) };
  if (type.namespaced && namespace !== undefined) meta.namespace = namespace;
  if (!type.namespaced) delete meta.namespace;
  return Defaults.scheme(type, { ...toStorage(type, body), metadata: meta });
};

/** What the registry does before storing a new object: system fields, generated name, strategy. */
export const prepareCreate = (
  type: ResourceType,
  obj: JsonObject,
  now: number,
  random: () => number,
): JsonObject => {
  const meta: JsonObject = { ...metaOf(obj) };
  for (const f of ["resourceVersion", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"])
    delete meta[f];
  if (
    (typeof meta.name !== "string" || meta.name === "") &&
    typeof meta.generateName === "string" &&
    meta.generateName !== ""
  )
    meta.name = generateName(meta.generateName, random);
  meta.uid = makeUid(random);
  meta.creationTimestamp = formatTime(now);
  if (type.generation) meta.generation = 1;
  else delete meta.generation;
  const next: JsonObject = { ...obj, metadata: meta };
  if (type.status) delete next.status;
  return Defaults.onCreate(type, next, random);
};

/** Everything but metadata (and status when it is a subresource) — what bumps generation. */
const specOf = (type: ResourceType, obj: JsonObject): JsonObject => {
  const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = obj;
  return type.status ? rest : { ...rest, status };
};

/**
 * The object an update stores, from the old object and the new body, for the main resource or the
 * `status` subresource; system fields (generation included) are carried over. The generation is
 * bumped later, by {@link bumpGeneration}.
 */
export const prepareUpdate = (
  type: ResourceType,
  old: JsonObject,
  body: JsonObject,
  subresource: "status" | undefined,
): JsonObject => {
  const oldMeta = metaOf(old);
  let next: JsonObject;
  if (subresource === "status") {
    next = {
      ...old,
      metadata: { ...oldMeta, managedFields: metaOf(body).managedFields ?? oldMeta.managedFields },
    };
    if (Object.hasOwn(body, "status")) next.status = body.status;
    else delete next.status;
  } else {
    const meta: JsonObject = { ...metaOf(body) };
    for (const f of ["creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"]) {
      if (oldMeta[f] === undefined) delete meta[f];
      else meta[f] = oldMeta[f];
    }
    if (typeof meta.uid !== "string" || meta.uid === "") meta.uid = oldMeta.uid;
    if (meta.managedFields === undefined && oldMeta.managedFields !== undefined)
      meta.managedFields = oldMeta.managedFields;
    next = { ...toStorage(type, body), metadata: meta };
    if (type.status) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    next = Defaults.onUpdate(type, Defaults.scheme(type, next), old);
  }
  return next;
};

/**
 * The object an update stores with its generation: the old one, plus one when the spec changed.
 * Applied after mutating admission (webhooks see the old generation and their own spec changes
 * count), as kube-apiserver's BeforeUpdate does.
 *
 * @example
 * bumpGeneration(type, old, { ...old, spec: { replicas: 2 } }).metadata.generation // old's + 1
 */
export const bumpGeneration = (type: ResourceType, old: JsonObject, next: JsonObject): JsonObject => {
  if (!type.generation || deepEqual(specOf(type, next), specOf(type, old))) return next;
  const gen = metaOf(old).generation;
  return { ...next, metadata: { ...metaOf(next), generation: (typeof gen === "number" ? gen : 0) + 1 } };
};

/**
 * Whether an update changes nothing worth a new resourceVersion: as kube-apiserver compares, a
 * change of managedFields counts (a new manager of the same values), their timestamps alone do not.
 * Compared field by field, in place (parts a write did not touch are the very same objects).
 */
export const isNoop = (old: JsonObject, next: JsonObject): boolean => {
  if (!sameFields(old, next, "metadata")) return false;
  const before = metaOf(old);
  const after = metaOf(next);
  if (!sameFields(before, after, "resourceVersion", "managedFields")) return false;
  const entries = listOf(before.managedFields);
  const others = listOf(after.managedFields);
  if (entries.length !== others.length) return false;
  for (let i = 0; i < entries.length; i++)
    if (!sameFields(asObject(entries[i]), asObject(others[i]), "time")) return false;
  return true;
};

const listOf = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : []);

/** Whether two objects have the same fields but the skipped ones (deep equality of the others). */
const sameFields = (a: JsonObject, b: JsonObject, ...skipped: ReadonlyArray<string>): boolean => {
  let count = 0;
  for (const key of Object.keys(a)) {
    if (skipped.includes(key)) continue;
    count += 1;
    if (!Object.hasOwn(b, key) || !deepEqual(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (!skipped.includes(key)) count -= 1;
  return count === 0;
};

export const finalizersOf = (obj: JsonObject): ReadonlyArray<string> => {
  const f = metaOf(obj).finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : [];
};

export const isDeleting = (obj: JsonObject): boolean => metaOf(obj).deletionTimestamp !== undefined;

/** Whether a deleting object has nothing left holding it (namespaces also wait for spec.finalizers). */
export const canBeRemoved = (obj: JsonObject): boolean => {
  if (!isDeleting(obj) || finalizersOf(obj).length > 0) return false;
  if (obj.kind === "Namespace" && obj.apiVersion === "v1") {
    const f = asObject(obj.spec).finalizers;
    return !Array.isArray(f) || f.length === 0;
  }
  return true;
};

export const withMeta = (obj: JsonObject, patch: JsonObject): JsonObject => ({
  ...obj,
  metadata: { ...asObject(obj.metadata), ...patch },
});
