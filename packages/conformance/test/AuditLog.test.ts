// Covers AuditLog.summarise: each verb class counted, failures by status code, blank, malformed
// and truncated lines skipped, an empty log is all zeros.
import { describe, expect, it } from "vitest";
import * as AuditLog from "../src/AuditLog.ts";

const event = (verb: string, code: number) =>
  JSON.stringify({ kind: "Event", stage: "ResponseComplete", verb, responseStatus: { code } });

type Case = readonly [name: string, text: string, expected: AuditLog.AuditSummary];

describe("AuditLog.summarise", () => {
  it.each<Case>([
    ["an empty log", "", { requests: 0, writes: 0, failures: 0, watches: 0 }],
    ["a read", event("get", 200), { requests: 1, writes: 0, failures: 0, watches: 0 }],
    ["a failed read", event("get", 404), { requests: 1, writes: 0, failures: 1, watches: 0 }],
    ["a watch", event("watch", 200), { requests: 1, writes: 0, failures: 0, watches: 1 }],
    ...["create", "update", "patch", "delete", "deletecollection"].map(
      (verb): Case => [`a ${verb}`, event(verb, 200), { requests: 1, writes: 1, failures: 0, watches: 0 }],
    ),
    ["a conflicting create", event("create", 409), { requests: 1, writes: 1, failures: 1, watches: 0 }],
    ["blank lines", `\n\n${event("list", 200)}\n\n`, { requests: 1, writes: 0, failures: 0, watches: 0 }],
    [
      "a malformed and a truncated line",
      `not json\n${event("patch", 422)}\n{"verb":"cre`,
      { requests: 1, writes: 1, failures: 1, watches: 0 },
    ],
    [
      "an event without a status",
      JSON.stringify({ verb: "get" }),
      { requests: 1, writes: 0, failures: 0, watches: 0 },
    ],
  ])("%s", (_name, text, expected) => {
    expect(AuditLog.summarise(text)).toEqual(expected);
  });
});
