/**
 * Kopf's default progress storage (`SmartProgressStorage`, docs/behaviour/progress.md#storages): progress is written to
 * annotations only, while legacy records in `status.{name}.progress` are still read and purged.
 */
import type { FieldSpec } from "@kopf/structs";
import * as Result from "effect/Result";
import * as AnnotationsProgressStorage from "./AnnotationsProgressStorage.ts";
import * as MultiProgressStorage from "./MultiProgressStorage.ts";
import * as StatusProgressStorage from "./StatusProgressStorage.ts";
import type { StorageConfigError } from "./StorageError.ts";

/** Options of both parts, all optional; the defaults are Kopf's. */
export interface Options {
  readonly name?: string;
  readonly field?: FieldSpec;
  readonly touchKey?: string;
  readonly touchField?: FieldSpec;
  readonly prefix?: string;
  readonly v1?: boolean;
  readonly verbose?: boolean;
}

/** The smart storage: annotations first, then the read-and-purge-only status storage. */
export interface SmartProgressStorage extends MultiProgressStorage.MultiProgressStorage {
  readonly _tag: "SmartProgressStorage";
  readonly warnings: ReadonlyArray<string>;
}

const assemble = (
  annotations: AnnotationsProgressStorage.AnnotationsProgressStorage,
  options: Options,
): SmartProgressStorage => {
  const status = StatusProgressStorage.makeNoWrite({
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.field === undefined ? {} : { field: options.field }),
    ...(options.touchField === undefined ? {} : { touchField: options.touchField }),
  });
  return MultiProgressStorage.combine("SmartProgressStorage", [annotations, status], {
    warnings: annotations.warnings,
  });
};

/**
 * Make the smart storage; fails on an empty prefix.
 *
 * @example
 * ```ts
 * const storage = SmartProgressStorage.make({ prefix: "my-op.example.com" })
 * ```
 */
export const make = (options: Options = {}): Result.Result<SmartProgressStorage, StorageConfigError> =>
  Result.map(
    AnnotationsProgressStorage.make({
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      ...(options.verbose === undefined ? {} : { verbose: options.verbose }),
      ...(options.touchKey === undefined ? {} : { touchKey: options.touchKey }),
      ...(options.v1 === undefined ? {} : { v1: options.v1 }),
    }),
    (annotations) => assemble(annotations, options),
  );

/**
 * The smart storage with Kopf's defaults: what `settings.persistence.progressStorage` holds
 * unless configured otherwise.
 *
 * @example
 * ```ts
 * const storage = SmartProgressStorage.makeDefault()
 * ```
 */
export const makeDefault = (): SmartProgressStorage => assemble(AnnotationsProgressStorage.makeDefault(), {});
