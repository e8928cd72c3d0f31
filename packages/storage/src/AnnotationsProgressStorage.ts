/**
 * Handler progress kept in the object's annotations, one compact-JSON record per handler under
 * `{prefix}/{handler id}` (Kopf's `AnnotationsProgressStorage`, docs/behaviour/progress.md#storages). This is where Kopf
 * writes progress by default, and the keys and values are byte-identical to Kopf's.
 */
import { Body, type FieldPath, Json, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as AnnotationKeys from "./AnnotationKeys.ts";
import {
  hasEmptyStanzas,
  removeAnnotations,
  removeEmptyStanzas,
  storeMarker,
} from "./internal/conventions.ts";
import { ensure, isMutableObject, type MutableObject, purgeField } from "./internal/dicts.ts";
import type { ProgressStorage } from "./internal/progressStorageApi.ts";
import { withReserve } from "./internal/reservations.ts";
import * as ProgressRecord from "./ProgressRecord.ts";
import type { StorageConfigError } from "./StorageError.ts";

/** Options, all optional; the defaults are Kopf's. */
export interface Options {
  /** The annotation prefix; default `kopf.zalando.org`. Must not be empty. */
  readonly prefix?: string;
  /** Keep null fields in the stored JSON; default `false`. */
  readonly verbose?: boolean;
  /** The record key of the touch-dummy annotation; default `touch-dummy`. */
  readonly touchKey?: string;
  /** Also write legacy V1 keys; default `true` (as in Kopf, for safe rollbacks). */
  readonly v1?: boolean;
}

/** The annotations progress storage, with its settings and construction warnings. */
export interface AnnotationsProgressStorage extends ProgressStorage {
  readonly _tag: "AnnotationsProgressStorage";
  readonly prefix: string;
  readonly verbose: boolean;
  readonly touchKey: string;
  readonly v1: boolean;
  /** Warnings found on construction (e.g. a too-long prefix), for the caller to log. */
  readonly warnings: ReadonlyArray<string>;
}

/** Kopf's default annotation prefix. */
export const DEFAULT_PREFIX = AnnotationKeys.DEFAULT_PREFIX;

/** Whether the essence holds annotations of this prefix. */
const hasOwnKeys = (prefix: string, essence: Json.JsonObject): boolean => {
  const metadata = essence.metadata;
  const annotations = isMutableObject(metadata) ? metadata.annotations : undefined;
  return (
    isMutableObject(annotations) && Object.keys(annotations).some((k) => AnnotationKeys.isOwnKey(prefix, k))
  );
};

const annotationPath = (key: string): FieldPath.FieldPath => ["metadata", "annotations", key];

const build = (options: Options, warnings: ReadonlyArray<string>): AnnotationsProgressStorage => {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const verbose = options.verbose ?? false;
  const touchKey = options.touchKey ?? "touch-dummy";
  const v1 = options.v1 ?? true;
  const forming = { prefix, v1 };
  const keys = (key: string, body: RawBody) => AnnotationKeys.makeKeys(forming, key, body);
  const place = (key: string, body: RawBody, patch: MutableObject, encoded: string): void => {
    for (const fullKey of keys(key, body)) ensure(patch, annotationPath(fullKey), encoded);
    storeMarker(prefix, patch, body);
  };
  const storage: AnnotationsProgressStorage = {
    _tag: "AnnotationsProgressStorage" as const,
    prefix,
    verbose,
    touchKey,
    v1,
    warnings,
    fetch: ({ key, body }) => {
      const annotations = Body.annotations(body);
      for (const fullKey of keys(key, body)) {
        const encoded = Object.hasOwn(annotations, fullKey) ? annotations[fullKey] : undefined;
        if (typeof encoded !== "string") continue;
        const decoded = ProgressRecord.decode(encoded, fullKey);
        if (Result.isFailure(decoded) || decoded.success !== undefined) return decoded;
      }
      return Result.succeed(undefined);
    },
    store: ({ key, record, body, patch }) => place(key, body, patch, ProgressRecord.encode(record, verbose)),
    purge: ({ key, body, patch }) => {
      for (const fullKey of keys(key, body)) purgeField(body, patch, annotationPath(fullKey));
    },
    touch: ({ body, patch, value }) => {
      const annotations = Body.annotations(body);
      for (const fullKey of keys(touchKey, body)) {
        const current = Object.hasOwn(annotations, fullKey) ? annotations[fullKey] : null;
        if ((current ?? null) !== value) {
          ensure(patch, annotationPath(fullKey), value);
          storeMarker(prefix, patch, body);
        }
      }
    },
    clear: ({ essence }) => {
      // Nothing of ours in it: no copy is made.
      if (!hasOwnKeys(prefix, essence) && !hasEmptyStanzas(essence as MutableObject)) return essence;
      const copy = Json.deepCopy(essence) as MutableObject;
      const metadata = copy.metadata;
      const annotations = isMutableObject(metadata) ? metadata.annotations : undefined;
      if (isMutableObject(annotations)) {
        const own = Object.keys(annotations).filter((k) => AnnotationKeys.isOwnKey(prefix, k));
        removeAnnotations(copy, new Set(own));
      }
      removeEmptyStanzas(copy);
      return copy as Json.JsonObject;
    },
    flush: () => {},
  };
  return withReserve(storage, ({ key, body, patch }) => place(key, body, patch, ""));
};

/**
 * Make an annotations progress storage; fails on an empty prefix, warns on a too-long one.
 *
 * @example
 * ```ts
 * const storage = AnnotationsProgressStorage.make({ prefix: "my-op.example.com" })
 * // Result<AnnotationsProgressStorage, StorageConfigError>
 * ```
 */
export const make = (options: Options = {}): Result.Result<AnnotationsProgressStorage, StorageConfigError> =>
  Result.map(AnnotationKeys.checkPrefix(options.prefix ?? DEFAULT_PREFIX), ({ warnings }) =>
    build(options, warnings),
  );

/**
 * The storage with Kopf's defaults (`kopf.zalando.org`, not verbose, `touch-dummy`, V1 keys
 * kept); it cannot fail.
 *
 * @example
 * ```ts
 * const storage = AnnotationsProgressStorage.makeDefault()
 * ```
 */
export const makeDefault = (): AnnotationsProgressStorage => build({}, []);
