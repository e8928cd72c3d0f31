/**
 * Errors of the storages: bad storage options (found when a storage is made) and stored state
 * that cannot be read back (a corrupted annotation or status field).
 */
import * as Data from "effect/Data";

/**
 * A storage was configured with options that cannot work.
 *
 * @example
 * ```ts
 * import { AnnotationsProgressStorage } from "@kopf/storage"
 * const result = AnnotationsProgressStorage.make({ prefix: "" })
 * // Result.isFailure(result) and result.failure.reason === "EmptyPrefix"
 * ```
 */
export class StorageConfigError extends Data.TaggedError("StorageConfigError")<{
  readonly reason: "EmptyPrefix";
  readonly message: string;
}> {}

/**
 * Stored state (a progress record or a diff-base essence) that cannot be decoded: the value is
 * not valid JSON, not a JSON object, or a record field has the wrong type.
 *
 * @example
 * ```ts
 * import { StorageError } from "@kopf/storage"
 * const error = new StorageError.StorageDecodeError({
 *   reason: "InvalidJson", key: "kopf.zalando.org/fn", message: "Unexpected token",
 * })
 * ```
 */
export class StorageDecodeError extends Data.TaggedError("StorageDecodeError")<{
  readonly reason: "InvalidJson" | "NotAnObject" | "InvalidField";
  /** Where the state was read from: an annotation key or a dotted field path. */
  readonly key: string;
  readonly message: string;
}> {}
