/**
 * Reads the real API server's audit log (JSON lines, one per request made with the tests' token,
 * user kopf-admin, or with a service account's token; see tools/kube-apiserver/audit.go) into counts: all requests, writes, watches
 * and failures (status ≥ 400). The real tier uses it to prove that each end-to-end file reached
 * the real server, and to report how much it asked of it.
 */
const WRITES = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** What the tests of one file asked of the real API server. */
export interface AuditSummary {
  readonly requests: number;
  readonly writes: number;
  readonly failures: number;
  readonly watches: number;
}

/**
 * Counts the events of an audit log (malformed lines are skipped: the log may end mid-line).
 *
 * @example
 * ```ts
 * AuditLog.summarise('{"verb":"create","responseStatus":{"code":201}}\n') // { requests: 1, writes: 1, failures: 0, watches: 0 }
 * ```
 */
export const summarise = (text: string): AuditSummary => {
  let requests = 0;
  let writes = 0;
  let failures = 0;
  let watches = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let event: { verb?: unknown; responseStatus?: { code?: unknown } };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    requests++;
    if (typeof event.verb === "string" && WRITES.has(event.verb)) writes++;
    if (event.verb === "watch") watches++;
    if (typeof event.responseStatus?.code === "number" && event.responseStatus.code >= 400) failures++;
  }
  return { requests, writes, failures, watches };
};
