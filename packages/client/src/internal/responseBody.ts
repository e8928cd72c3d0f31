/**
 * A response's body as the client reads it: its text, or its JSON (`undefined`, or `{}`, when the
 * body is blank), with an error naming the request when the body is not JSON.
 */
import * as Effect from "effect/Effect";
import { KubeApiError } from "../KubeApiError.ts";
import type { TransportResponse } from "../KubeTransport.ts";

const decoder = new TextDecoder();

/**
 * Whether a text is only whitespace, as `trim` tells, answered at its first character in the
 * usual case (a JSON body starts with `{` or `[`) instead of copying the whole text.
 */
const isBlank = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) continue;
    return code < 0x80 ? false : text.trim() === "";
  }
  return true;
};

/**
 * The JSON of a response body, `undefined` when empty (or `{}` with `orEmpty`); a body that is not
 * JSON fails, naming the request (`what`, made only then).
 */
export const parsed = (
  response: TransportResponse,
  what: () => string,
  orEmpty: boolean,
): Effect.Effect<unknown, KubeApiError> => {
  const text = decoder.decode(response.body);
  if (isBlank(text)) return Effect.succeed(orEmpty ? {} : undefined);
  try {
    const value = JSON.parse(text) as unknown;
    return Effect.succeed(orEmpty ? (value ?? {}) : value);
  } catch (cause) {
    return Effect.fail(
      (response.headers["content-type"] ?? "").includes("json")
        ? KubeApiError.transport(`Malformed JSON in the response to ${what()}.`, cause)
        : KubeApiError.transport(`Not JSON in the response to ${what()}: ${text.slice(0, 80)}`, cause),
    );
  }
};

/** The JSON of a response body (`undefined` when empty). */
export const parseJson = (response: TransportResponse, what: string): Effect.Effect<unknown, KubeApiError> =>
  parsed(response, () => what, false);

/** The text of a response body. */
export const textOf = (response: TransportResponse): string => decoder.decode(response.body);
