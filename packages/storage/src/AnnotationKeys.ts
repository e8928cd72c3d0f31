/**
 * Annotation key forming, shared by the progress and diff-base annotation storages (Kopf's
 * `StorageKeyFormingConvention`): safe names, hashed suffixes for over-long names, the V1 (legacy)
 * and V2 key forms, and the collision mark for ReplicaSets owned by Deployments. The keys are
 * byte-identical to Python Kopf's, so both can read each other's state.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import * as Result from "effect/Result";
import * as Base64 from "./internal/base64.ts";
import { StorageConfigError } from "./StorageError.ts";

/** Kopf's default annotation prefix, for progress, diff-base and touch keys. */
export const DEFAULT_PREFIX = "kopf.zalando.org";

/** Kubernetes limits the name part of an annotation key (after the `/`) to 63 characters. */
export const MAX_NAME_LENGTH = 63;

/** Longest prefix that still leaves room for a 63-char name in a 253-char key: 253 − 63 − 1. */
export const MAX_PREFIX_LENGTH = 253 - 63 - 1;

/** The warning Kopf issues for prefixes longer than {@link MAX_PREFIX_LENGTH}. */
export const PREFIX_TOO_LONG_WARNING =
  "The annotations prefix is too long. It can cause errors when PATCHing.";

/** How keys are formed for one storage: its prefix and whether legacy V1 keys are kept. */
export interface KeyForming {
  readonly prefix: string;
  readonly v1: boolean;
}

/** The result of checking a storage prefix: warnings to log (pure code does not log). */
export interface PrefixCheck {
  readonly warnings: ReadonlyArray<string>;
}

// Python measures and slices strings by code points; JS strings by UTF-16 units.
const codePoints = (text: string): ReadonlyArray<string> => Array.from(text);
const length = (text: string): number => codePoints(text).length;
// Python's `text[:count]`, including its negative counts (drop that many from the end).
const head = (text: string, count: number): string => codePoints(text).slice(0, count).join("");

/**
 * Replace the characters Kubernetes does not allow in annotation names: `/` ⇒ `.`,
 * `<` and `>` ⇒ `_`.
 *
 * @example
 * ```ts
 * AnnotationKeys.safeName("a_b.c-d/e") // "a_b.c-d.e"
 * ```
 */
export const safeName = (key: string): string =>
  key.replaceAll("/", ".").replaceAll("<", "_").replaceAll(">", "_");

/**
 * The hash suffix for a cut key: `-` plus base64 (altchars `-` and `.`) of the 4-byte blake2b
 * digest of the UTF-8 key, with trailing `=`, `-` and `.` stripped.
 *
 * @example
 * ```ts
 * AnnotationKeys.hashSuffix("x".repeat(40)) // "-tEokcg"
 * ```
 */
export const hashSuffix = (key: string): string => {
  const digest = blake2b(utf8ToBytes(key), { dkLen: 4 });
  return `-${Base64.encode(digest, "-", ".")}`.replace(/[=.-]+$/, "");
};

/**
 * The legacy V1 key: the whole `prefix/name` is limited to 63 characters; a longer safe name is
 * cut and suffixed with the hash of the safe name.
 *
 * @example
 * ```ts
 * AnnotationKeys.v1Key("my-operator.example.com", "x".repeat(40))
 * // "my-operator.example.com/" + "x".repeat(32) + "-tEokcg"
 * ```
 */
export const v1Key = (prefix: string, key: string): string => {
  const safe = safeName(key);
  const lead = prefix ? `${prefix}/` : "";
  const room = MAX_NAME_LENGTH - length(lead);
  const suffix = length(safe) <= room ? "" : hashSuffix(safe);
  return `${lead}${head(safe, room - length(suffix))}${suffix}`;
};

/**
 * The V2 key (the primary one): only the name part is limited to 63 characters; a longer key is
 * cut and suffixed with the hash of the raw (unsafe) key.
 *
 * @example
 * ```ts
 * AnnotationKeys.v2Key("kopf.zalando.org", "create_fn/sub1") // "kopf.zalando.org/create_fn.sub1"
 * ```
 */
export const v2Key = (prefix: string, key: string): string => {
  const lead = prefix ? `${prefix}/` : "";
  const suffix = length(key) > MAX_NAME_LENGTH ? hashSuffix(key) : "";
  const limit = Math.max(0, MAX_NAME_LENGTH - length(suffix));
  return `${lead}${head(safeName(key), limit)}${suffix}`;
};

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Kubernetes copies a Deployment's annotations onto its ReplicaSets, so keys on a ReplicaSet
 * owned by a Deployment get the `-ofDRS` mark to keep both objects' state apart.
 *
 * @example
 * ```ts
 * const rs = { kind: "ReplicaSet", metadata: { ownerReferences: [{ kind: "Deployment" }] } }
 * AnnotationKeys.markKey("xyz", rs) // "xyz-ofDRS"
 * ```
 */
export const markKey = (key: string, body: unknown): string => {
  if (typeof body !== "object" || body === null || (body as { kind?: unknown }).kind !== "ReplicaSet")
    return key;
  if (!isRecord(body)) return key;
  const meta = body.metadata;
  const owners = isRecord(meta) ? meta.ownerReferences : undefined;
  const ownedByDeployment =
    Array.isArray(owners) && owners.some((owner: unknown) => isRecord(owner) && owner.kind === "Deployment");
  return ownedByDeployment ? `${key}-ofDRS` : key;
};

/**
 * All annotation keys for a record key: the V2 key first, then the V1 key if V1 keys are kept
 * and it differs. With a body, the collision mark is applied first (see {@link markKey}).
 *
 * @example
 * ```ts
 * AnnotationKeys.makeKeys({ prefix: "kopf.zalando.org", v1: true }, "create_fn")
 * // ["kopf.zalando.org/create_fn"]
 * ```
 */
export const makeKeys = (forming: KeyForming, key: string, body?: unknown): ReadonlyArray<string> => {
  const marked = body === undefined ? key : markKey(key, body);
  const byPrefix = formed[forming.v1 ? 1 : 0];
  let byKey = byPrefix.get(forming.prefix);
  if (byKey === undefined) {
    byKey = new Map();
    byPrefix.set(forming.prefix, byKey);
  }
  const known = byKey.get(marked);
  if (known !== undefined) return known;
  const v2 = v2Key(forming.prefix, marked);
  const v1 = forming.v1 ? v1Key(forming.prefix, marked) : v2;
  const keys = v1 === v2 ? [v2] : [v2, v1];
  if (byKey.size >= FORMED_LIMIT) byKey.clear();
  byKey.set(marked, keys);
  return keys;
};

// Keys are formed for every handler of every object on every cycle, from a handful of distinct
// (prefix, handler id) pairs; forming them (code points, hashing) is remembered, by V1 keeping,
// prefix and key (nested maps: no key string is built per lookup). The function is pure, so the
// cache only saves time; it is bounded (cleared when full) for ids made per object.
const FORMED_LIMIT = 4096;
const formed: readonly [
  Map<string, Map<string, ReadonlyArray<string>>>,
  Map<string, Map<string, ReadonlyArray<string>>>,
] = [new Map(), new Map()];

/**
 * Validate a storage prefix as Kopf does on storage creation: an empty prefix is an error; a
 * prefix longer than {@link MAX_PREFIX_LENGTH} only yields a warning (the keys are then not
 * shortened and PATCHes may be rejected by Kubernetes).
 *
 * @example
 * ```ts
 * AnnotationKeys.checkPrefix("kopf.zalando.org") // Result.succeed({ warnings: [] })
 * ```
 */
export const checkPrefix = (prefix: string): Result.Result<PrefixCheck, StorageConfigError> => {
  if (!prefix) {
    return Result.fail(
      new StorageConfigError({
        reason: "EmptyPrefix",
        message: "Annotations storages must be prefixed.",
      }),
    );
  }
  const warnings = length(prefix) > MAX_PREFIX_LENGTH ? [PREFIX_TOO_LONG_WARNING] : [];
  return Result.succeed({ warnings });
};

/**
 * Does this annotation key belong to the storage's prefix (`{prefix}/...`)?
 *
 * @example
 * ```ts
 * AnnotationKeys.isOwnKey("kopf.zalando.org", "kopf.zalando.org/fn") // true
 * ```
 */
export const isOwnKey = (prefix: string, key: string): boolean =>
  prefix !== "" && key.startsWith(`${prefix}/`);
