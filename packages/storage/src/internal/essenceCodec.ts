/**
 * Encoding and decoding of a stored essence: compact JSON exactly as Python's `json.dumps`
 * writes it (non-ASCII escaped), and back, where only a JSON object (or `null`: none) is valid.
 */
import { Json } from "@kopf/structs";
import * as Result from "effect/Result";
import { StorageDecodeError } from "../StorageError.ts";
import { parseJson } from "./parseJson.ts";

/** Decode a stored essence read from `key`; `null` means there is none. */
export const decodeEssence = (
  text: string,
  key: string,
): Result.Result<Json.JsonObject | undefined, StorageDecodeError> =>
  Result.flatMap(parseJson(text, key, "last-handled configuration"), (value) => {
    if (value === null) return Result.succeed(undefined);
    if (Json.isObject(value)) return Result.succeed(value as Json.JsonObject);
    return Result.fail(
      new StorageDecodeError({
        reason: "NotAnObject",
        key,
        message: `The last-handled configuration in ${key} is not a JSON object: ${text.slice(0, 100)}`,
      }),
    );
  });

/** Encode an essence as Kopf does (no trailing newline; the annotation storage adds one). */
export const encodeEssence = (essence: Json.JsonObject): string => Json.pyDumps(essence);
