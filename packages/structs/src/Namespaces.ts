/**
 * Namespace patterns as operators are configured with them (`--namespace`, docs/behaviour/watching.md#namespaces): globs with
 * `*`, `?`, `[seq]`, `[!seq]`, comma-separated lists with `!` exclusions, or regular
 * expressions; and the choice of the namespaces that can be served without observing them.
 */
import { fnmatch } from "./internal/fnmatch.ts";

/** A namespace pattern: a glob list (`"myapp-*,!*-pr-*"`) or a regular expression (full match). */
export type NamespacePattern = string | RegExp;

const fullMatch = (name: string, re: RegExp): boolean =>
  new RegExp(`^(?:${re.source})$`, re.flags.replace(/[gym]/g, "")).test(name);

/**
 * Whether the namespace `name` matches `pattern`, with Kopf's semantics: a regular expression
 * must match the whole name. A glob list is read left to right (spaces around parts ignored):
 * the first inclusive glob does the initial match, `!glob` excludes, and later inclusive globs
 * re-include only names the initial glob matched; a list starting with an exclusion implies a
 * leading `*`.
 *
 * @example
 * matchNamespace("myapp-pr-123", "myapp-*, !*-pr-*, *pr-123") // true
 * matchNamespace("myapp-pr-456", "myapp-*, !*-pr-*, *pr-123") // false
 * matchNamespace("ns1", /ns.+/) // true
 */
export const matchNamespace = (name: string, pattern: NamespacePattern): boolean => {
  if (pattern instanceof RegExp) return fullMatch(name, pattern);
  const globs = pattern.split(",").map((glob) => glob.trim());
  if (globs[0]?.startsWith("!")) globs.unshift("*");
  const [first = "", ...rest] = globs;
  const firstMatch = fnmatch(name, first);
  let matches = firstMatch;
  for (const glob of rest) {
    if (glob.startsWith("!")) matches = matches && !fnmatch(name, glob.replace(/^!+/, ""));
    else matches = matches || (firstMatch && fnmatch(name, glob));
  }
  return matches;
};

/**
 * The patterns that name exactly one namespace (no `!`, `*`, `?` or `,`; regular expressions
 * excluded), sorted and without duplicates: what can be served directly when namespaces
 * cannot be observed. `""` stays (the cluster-wide or default scope, as in Kopf).
 *
 * @example
 * selectSpecificNamespaces(["ns2", "ns1", "ns*", /x/]) // ["ns1", "ns2"]
 */
export const selectSpecificNamespaces = (patterns: Iterable<NamespacePattern>): ReadonlyArray<string> =>
  [
    ...new Set(
      [...patterns].filter(
        (p): p is string => typeof p === "string" && !["!", "*", "?", ","].some((c) => p.includes(c)),
      ),
    ),
  ].sort();
