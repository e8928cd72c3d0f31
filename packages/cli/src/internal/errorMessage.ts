/** The text a command prints for a failure: its `message` when it has one, else the value itself. */

/**
 * The error's message, or the value as a string when it has none.
 *
 * @example
 * messageOf(new Error("no kubeconfig")) // "no kubeconfig"
 * messageOf("refused") // "refused"
 */
export const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error);
