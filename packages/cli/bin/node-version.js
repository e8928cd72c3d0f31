// The Node.js version check the `kopf` launcher runs before it imports anything else: plain
// JavaScript that every Node.js with ES modules can parse, so an old Node gets one clear line
// instead of a SyntaxError from a missing built-in export deep in a dependency.

/** The oldest Node.js the packages run on (undici 8 and @effect/platform-node need 22.19). */
export const REQUIRED = "22.19.0";

const parts = (version) =>
  version
    .replace(/^v/, "")
    .split(/[.+-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);

/**
 * Whether `found` (like `process.versions.node`) is at least `required`.
 *
 * @example
 * satisfies("22.23.5", "22.19.0") // true
 * satisfies("20.20.2", "22.19.0") // false
 */
export const satisfies = (found, required = REQUIRED) => {
  const have = parts(found);
  const want = parts(required);
  for (let index = 0; index < 3; index++) {
    if (have[index] !== want[index]) return have[index] > want[index];
  }
  return true;
};

/**
 * The one-line complaint about `found`, or `undefined` when it is recent enough.
 *
 * @example
 * problem("20.20.2") // "kopf needs Node.js 22.19.0 or newer; this is Node.js 20.20.2 (...)."
 */
export const problem = (found, executable = "node", required = REQUIRED) =>
  satisfies(found, required)
    ? undefined
    : `kopf needs Node.js ${required} or newer; this is Node.js ${found.replace(/^v/, "")} (${executable}).`;
