/**
 * Turns a schema issue tree into settings issues: one per problem, each with the setting's full
 * path written as in code (`networking.errorBackoffs[2]`), duplicates dropped, and excess keys
 * reported as unknown settings.
 */
import * as SchemaIssue from "effect/SchemaIssue";
import type { Issue } from "../SettingsError.ts";

const UNKNOWN_SETTING = "unknown setting";

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "UnexpectedKey" ? UNKNOWN_SETTING : SchemaIssue.defaultLeafHook(issue),
});

const formatPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string => {
  let text = "";
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment;
    text += typeof key === "number" ? `[${key}]` : text === "" ? String(key) : `.${String(key)}`;
  }
  return text === "" ? "settings" : text;
};

/** The settings issues of a failed validation, in the order found. */
export const toIssues = (issue: SchemaIssue.Issue): Array<Issue> => {
  const seen = new Set<string>();
  const issues: Array<Issue> = [];
  for (const { path, message } of formatter(issue).issues) {
    const entry: Issue = {
      path: formatPath(path ?? []),
      reason: message === UNKNOWN_SETTING ? "UnknownSetting" : "InvalidValue",
      problem: message,
    };
    const key = `${entry.path}\u0000${entry.problem}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(entry);
    }
  }
  return issues;
};
