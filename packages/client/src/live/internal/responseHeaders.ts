/**
 * The headers of an HTTP response as the transport port gives them: one string per lower-case
 * name, repeated ones joined by ", ", in a record without a prototype (lower-cased, `__proto__`
 * and `constructor` are names every object inherits; a server's header of that name is a header
 * like any other). Shared by the live transports.
 */

/** A record of response headers with none yet. */
export const emptyHeaders = (): Record<string, string> => Object.create(null);

/**
 * Adds a header (its name lower-case already) to `headers`, joined by ", " to an earlier one of
 * the same name.
 *
 * @example
 * ```ts
 * const headers = emptyHeaders()
 * addHeader(headers, "warning", "a")
 * addHeader(headers, "warning", "b") // headers.warning === "a, b"
 * ```
 */
export const addHeader = (headers: Record<string, string>, name: string, value: string): void => {
  const previous = headers[name];
  headers[name] = previous === undefined ? value : `${previous}, ${value}`;
};

/**
 * Response headers with lower-case names and repeated ones joined by ", ".
 *
 * @example
 * ```ts
 * lowerCaseHeaders({ "Content-Type": "application/json", "set-cookie": ["a", "b"] }) // { "content-type": "application/json", "set-cookie": "a, b" }
 * ```
 */
export const lowerCaseHeaders = (
  headers: Record<string, string | ReadonlyArray<string> | undefined>,
): Record<string, string> => {
  const result = emptyHeaders();
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      addHeader(result, name.toLowerCase(), typeof value === "string" ? value : value.join(", "));
  }
  return result;
};
