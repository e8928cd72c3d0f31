/**
 * Progress records: the per-handler state Kopf persists between processing cycles (docs/behaviour/progress.md#records),
 * with Kopf's field names and JSON encoding, so records written by Python Kopf and by this port
 * are interchangeable byte for byte. Reading checks the shape with an Effect `Schema`; writing
 * stays hand-written (`encode`), because the text must match Python's `json.dumps` byte for byte.
 */
import { Json } from "@kopf/structs";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import { put } from "./internal/dicts.ts";
import { parseJson } from "./internal/parseJson.ts";
import { StorageDecodeError } from "./StorageError.ts";

/**
 * One handler's persisted progress. Timestamps are ISO-8601 strings
 * (`2020-12-31T23:59:59.123456+00:00`); `null` and absent fields mean the same.
 */
export interface ProgressRecord {
  /** When the first attempt started. */
  readonly started?: string | null;
  /** When the handler reached its final outcome (success or permanent failure). */
  readonly stopped?: string | null;
  /** Not before this moment should the handler run again. */
  readonly delayed?: string | null;
  /** The cause reason the handler runs for: `create`, `update`, `delete`, `resume`. */
  readonly purpose?: string | null;
  /** Attempts so far, counting the successful one. */
  readonly retries?: number | null;
  readonly success?: boolean | null;
  readonly failure?: boolean | null;
  /** The error message of the last failed attempt. */
  readonly message?: string | null;
  /** All sub-handler ids used by this handler (any depth), sorted; for purging. */
  readonly subrefs?: ReadonlyArray<string> | null;
}

/** The record fields in Kopf's order, which is also the order of keys in the JSON. */
export const FIELDS = [
  "started",
  "stopped",
  "delayed",
  "purpose",
  "retries",
  "success",
  "failure",
  "message",
  "subrefs",
] as const;

const optionalNullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema));

/**
 * The record's shape as an Effect `Schema`: each known field optional and nullable, of its type.
 * Unknown fields are tolerated (and dropped), as Kopf does.
 */
export const RecordSchema = Schema.Struct({
  started: optionalNullable(Schema.String),
  stopped: optionalNullable(Schema.String),
  delayed: optionalNullable(Schema.String),
  purpose: optionalNullable(Schema.String),
  retries: optionalNullable(Schema.Int),
  success: optionalNullable(Schema.Boolean),
  failure: optionalNullable(Schema.Boolean),
  message: optionalNullable(Schema.String),
  subrefs: optionalNullable(Schema.Array(Schema.String)),
});

const decodeRecord = Schema.decodeUnknownResult(RecordSchema);
const formatter = SchemaIssue.makeFormatterStandardSchemaV1();

/**
 * Check that a decoded JSON value is a progress record: an object whose known fields have the
 * right types (or are null). Unknown fields are tolerated, as in Kopf. The error names the
 * record's key, the field and what was wrong with it.
 *
 * @example
 * ```ts
 * ProgressRecord.validate({ started: "2020-12-31T23:59:59.123456+00:00", retries: 1 }, "fn")
 * // Result.succeed({ started: ..., retries: 1 })
 * ```
 */
export const validate = (value: unknown, key: string): Result.Result<ProgressRecord, StorageDecodeError> => {
  if (!Json.isObject(value)) {
    return Result.fail(
      new StorageDecodeError({
        reason: "NotAnObject",
        key,
        message: `The progress record in ${key} is not a JSON object: ${JSON.stringify(value)}`,
      }),
    );
  }
  return Result.mapError(decodeRecord(value), (error) => {
    const [first] = formatter(error.issue).issues;
    const path = (first?.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment));
    const actual = path.reduce<unknown>(
      (at, step) =>
        Json.isObject(at) || Array.isArray(at) ? (at as Record<PropertyKey, unknown>)[step] : undefined,
      value,
    );
    return new StorageDecodeError({
      reason: "InvalidField",
      key,
      message: `The progress record in ${key} has ${path.map(String).join(".")}=${JSON.stringify(actual)}: ${first?.message ?? "invalid"}.`,
    });
  });
};

/**
 * Parse a JSON text (an annotation value) into a record. The text `null` means "no record",
 * as in Kopf (which then looks at the next key).
 *
 * @example
 * ```ts
 * ProgressRecord.decode('{"started":"2020-12-31T23:59:59.123456+00:00","retries":0}', "fn")
 * ```
 */
export const decode = (
  text: string,
  key: string,
): Result.Result<ProgressRecord | undefined, StorageDecodeError> =>
  Result.flatMap(parseJson(text, key, "progress record"), (value) =>
    value === null ? Result.succeed(undefined) : validate(value, key),
  );

/**
 * The record as a JSON object, keys in the record's own order (records made by `HandlerState`
 * use Kopf's {@link FIELDS} order); null fields are left out unless `verbose` (an all-null
 * record is `{}`), as Kopf's annotation storage does.
 *
 * @example
 * ```ts
 * ProgressRecord.toJson({ retries: 1, message: null }, false) // { retries: 1 }
 * ```
 */
export const toJson = (record: ProgressRecord, verbose: boolean): Json.JsonObject => {
  const out: Record<string, Json.JsonValue> = {};
  for (const [field, value] of Object.entries(record)) {
    if (value === undefined) continue;
    if (value !== null || verbose) put(out, field, value);
  }
  return out;
};

/**
 * The record as Kopf writes it into an annotation: compact JSON from Python's `json.dumps`.
 *
 * @example
 * ```ts
 * ProgressRecord.encode({ started: "2020-12-31T23:59:59.123456+00:00", retries: 0 }, false)
 * // '{"started":"2020-12-31T23:59:59.123456+00:00","retries":0}'
 * ```
 */
export const encode = (record: ProgressRecord, verbose: boolean): string =>
  Json.pyDumps(toJson(record, verbose));
