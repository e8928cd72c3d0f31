/**
 * The headers of an HTTP response as the transport port gives them: one string per lower-case
 * name. Shared by the live transports.
 */

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
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      result[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ");
  }
  return result;
};
