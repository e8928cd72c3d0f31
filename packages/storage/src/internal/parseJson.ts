/**
 * JSON parsing of stored state into a `Result`, with an error naming where the text came from.
 */
import * as Result from "effect/Result";
import { StorageDecodeError } from "../StorageError.ts";

/** Parse `text` read from `key`; `what` names the content for the error message. */
export const parseJson = (
  text: string,
  key: string,
  what: string,
): Result.Result<unknown, StorageDecodeError> =>
  Result.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) =>
      new StorageDecodeError({
        reason: "InvalidJson",
        key,
        message: `The ${what} in ${key} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      }),
  });
