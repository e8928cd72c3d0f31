/**
 * The last-handled configuration kept in an annotation, `kopf.zalando.org/last-handled-configuration`
 * by default (Kopf's `AnnotationsDiffBaseStorage`, docs/behaviour/causes.md#last-handled-configuration): compact JSON plus a newline,
 * byte-identical to what Python Kopf writes, so either can take over the other's objects.
 */
import { Body, type FieldSpec, type Json, type RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as AnnotationKeys from "./AnnotationKeys.ts";
import type { DiffBaseStorage } from "./DiffBaseStorage.ts";
import * as Essence from "./Essence.ts";
import { removeAnnotations, removeEmptyStanzas, storeMarker } from "./internal/conventions.ts";
import { ensure, type MutableObject } from "./internal/dicts.ts";
import { decodeEssence, encodeEssence } from "./internal/essenceCodec.ts";
import type { StorageConfigError } from "./StorageError.ts";

/** Options, all optional; the defaults are Kopf's. */
export interface Options {
  /** Default `kopf.zalando.org`. Must not be empty. */
  readonly prefix?: string;
  /** Default `last-handled-configuration`. */
  readonly key?: string;
  /** Fields never included in the essence. */
  readonly ignoredFields?: Iterable<FieldSpec>;
  /** Also write the legacy V1 key; default `true`. */
  readonly v1?: boolean;
}

/** The annotations diff-base storage with its settings and construction warnings. */
export interface AnnotationsDiffBaseStorage extends DiffBaseStorage {
  readonly _tag: "AnnotationsDiffBaseStorage";
  readonly prefix: string;
  readonly key: string;
  readonly v1: boolean;
  readonly ignoredFields: ReadonlyArray<FieldSpec>;
  readonly warnings: ReadonlyArray<string>;
}

/** Kopf's default annotation prefix and key. */
export const DEFAULT_PREFIX = AnnotationKeys.DEFAULT_PREFIX;
export const DEFAULT_KEY = "last-handled-configuration";

const build = (options: Options, warnings: ReadonlyArray<string>): AnnotationsDiffBaseStorage => {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const key = options.key ?? DEFAULT_KEY;
  const v1 = options.v1 ?? true;
  const ignoredFields = [...(options.ignoredFields ?? [])];
  const forming = { prefix, v1 };
  const keys = (body: RawBody) => AnnotationKeys.makeKeys(forming, key, body);
  return {
    _tag: "AnnotationsDiffBaseStorage",
    prefix,
    key,
    v1,
    ignoredFields,
    warnings,
    build: ({ body, extraFields }) => {
      const essence = Essence.build(body, { extraFields, ignoredFields }) as MutableObject;
      removeAnnotations(essence, new Set(keys(body)));
      removeEmptyStanzas(essence);
      return essence as Json.JsonObject;
    },
    fetch: ({ body }) => {
      const annotations = Body.annotations(body);
      for (const fullKey of keys(body)) {
        const encoded = Object.hasOwn(annotations, fullKey) ? annotations[fullKey] : undefined;
        if (typeof encoded !== "string") continue;
        const decoded = decodeEssence(encoded, fullKey);
        if (Result.isFailure(decoded) || decoded.success !== undefined) return decoded;
      }
      return Result.succeed(undefined);
    },
    store: ({ body, patch, essence }) => {
      // The newline makes kubectl show the value unwrapped, as kubectl's own annotation does.
      const encoded = `${encodeEssence(essence)}\n`;
      for (const fullKey of keys(body)) ensure(patch, ["metadata", "annotations", fullKey], encoded);
      storeMarker(prefix, patch, body);
    },
  };
};

/**
 * Make an annotations diff-base storage; fails on an empty prefix, warns on a too-long one.
 *
 * @example
 * ```ts
 * const storage = AnnotationsDiffBaseStorage.make({ prefix: "my-op.example.com" })
 * // stores my-op.example.com/last-handled-configuration and my-op.example.com/kopf-managed
 * ```
 */
export const make = (options: Options = {}): Result.Result<AnnotationsDiffBaseStorage, StorageConfigError> =>
  Result.map(AnnotationKeys.checkPrefix(options.prefix ?? DEFAULT_PREFIX), ({ warnings }) =>
    build(options, warnings),
  );

/**
 * The storage with Kopf's defaults: what `settings.persistence.diffbaseStorage` holds unless
 * configured otherwise.
 *
 * @example
 * ```ts
 * const storage = AnnotationsDiffBaseStorage.makeDefault()
 * ```
 */
export const makeDefault = (): AnnotationsDiffBaseStorage => build({}, []);
