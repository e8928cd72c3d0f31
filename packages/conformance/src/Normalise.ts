/**
 * Normalisation of one server's outcomes before comparison: values that legitimately differ
 * between two servers replaying the same sequence are replaced by placeholders that keep their
 * identity within the sequence. UIDs become `<uid:1>`, `<uid:2>`… by first appearance;
 * object resourceVersions become `<rv:1>`… by first appearance (so "the same version as the
 * create returned" stays visible while absolute numbers do not matter); a list's or bookmark's
 * own resourceVersion becomes `<rv:list>` / `<rv:bookmark>` (the real server reports its global
 * revision there, which includes unrelated writes); timestamps become `<time>`; names generated
 * from `generateName` become `<generated:1>`…; continue tokens become `<continue:1>`…; and the
 * run's unique suffix becomes `<run>` wherever it appears in a string. Known uids, versions and
 * generated names are also replaced inside strings such as error messages.
 */
import type { Outcome } from "./Interaction.ts";

/** Placeholder tables for one sequence on one server. */
export interface Normaliser {
  readonly run: string;
  readonly uids: Map<string, string>;
  readonly versions: Map<string, string>;
  readonly generated: Map<string, string>;
  readonly continues: Map<string, string>;
}

/** A fresh normaliser for one sequence replayed on one server. */
export const make = (run: string): Normaliser => ({
  run,
  uids: new Map(),
  versions: new Map(),
  generated: new Map(),
  continues: new Map(),
});

const TIME_KEYS = new Set([
  "creationTimestamp",
  "deletionTimestamp",
  "time",
  "lastTransitionTime",
  "lastUpdateTime",
  "firstTimestamp",
  "lastTimestamp",
  "eventTime",
  "renewTime",
  "acquireTime",
]);

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const placeholder = (table: Map<string, string>, value: string, prefix: string): string => {
  const known = table.get(value);
  if (known !== undefined) return known;
  const next = `<${prefix}:${table.size + 1}>`;
  table.set(value, next);
  return next;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * First pass: register uids and generated names in document order, so that they are replaced
 * wherever they appear, also in keys (managedFields name owner references by uid) and before the
 * field that defines them.
 */
const collectGenerated = (n: Normaliser, value: unknown): void => {
  if (Array.isArray(value)) {
    for (const item of value) collectGenerated(n, item);
    return;
  }
  if (!isRecord(value)) return;
  if (typeof value.uid === "string" && value.uid !== "") placeholder(n.uids, value.uid, "uid");
  const meta = value.metadata;
  if (isRecord(meta) && typeof meta.generateName === "string" && typeof meta.name === "string") {
    if (
      meta.generateName !== "" &&
      meta.name.startsWith(meta.generateName) &&
      meta.name !== meta.generateName
    ) {
      placeholder(n.generated, meta.name, "generated");
    }
  }
  for (const child of Object.values(value)) collectGenerated(n, child);
};

const replaceAll = (text: string, table: Map<string, string>): string => {
  let out = text;
  for (const [from, to] of table) if (from !== "" && out.includes(from)) out = out.split(from).join(to);
  return out;
};

const normaliseString = (n: Normaliser, text: string): string => {
  let out = n.run === "" ? text : text.split(n.run).join("<run>");
  out = replaceAll(out, n.generated);
  out = replaceAll(out, n.uids);
  // Versions inside messages are whole numbers; replace only whole-word occurrences.
  return out.replace(/\b\d+\b/g, (digits) => n.versions.get(digits) ?? digits);
};

type Context = "object" | "list" | "bookmark";

const walk = (n: Normaliser, value: unknown, key: string | undefined, context: Context): unknown => {
  if (typeof value === "string") {
    if (key === "uid") return placeholder(n.uids, value, "uid");
    if (key === "resourceVersion" && /^\d+$/.test(value)) return placeholder(n.versions, value, "rv");
    if (key === "continue" && value !== "") return placeholder(n.continues, value, "continue");
    if (key !== undefined && TIME_KEYS.has(key) && ISO_TIME.test(value)) return "<time>";
    return normaliseString(n, value);
  }
  if (Array.isArray(value)) return value.map((item) => walk(n, item, undefined, "object"));
  if (!isRecord(value)) return value;
  const isList = typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[normaliseString(n, k)] =
      k === "metadata" && isRecord(v) ? walkMeta(n, v, isList ? "list" : context) : walk(n, v, k, "object");
  }
  return out;
};

const walkMeta = (n: Normaliser, meta: Record<string, unknown>, context: Context): unknown => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) {
    out[k] =
      k === "resourceVersion" && context !== "object" && typeof v === "string" && /^\d+$/.test(v)
        ? `<rv:${context}>`
        : walk(n, v, k, "object");
  }
  return out;
};

const isEvent = (e: unknown): e is { type: string; object: unknown } =>
  isRecord(e) && typeof e.type === "string" && "object" in e;

/** Normalises a body (JSON value or watch events): see the module comment for the rules. */
export const value = (n: Normaliser, body: unknown): unknown => {
  collectGenerated(n, body);
  if (Array.isArray(body) && body.length > 0 && body.every(isEvent)) {
    return body.map((e) => ({
      type: e.type,
      object: walk(n, e.object, undefined, e.type === "BOOKMARK" ? "bookmark" : "object"),
    }));
  }
  return walk(n, body, undefined, "object");
};

/**
 * Normalises an outcome of a sequence; call in the order the outcomes were produced, with one
 * normaliser per sequence and server.
 *
 * @example
 * ```ts
 * const n = Normalise.make("r1x")
 * Normalise.outcome(n, { interaction: "a/b", status: 201, mediaType: "application/json",
 *   body: { metadata: { name: "cm-r1x", uid: "1b4e…", resourceVersion: "812" } } })
 * // body: { metadata: { name: "cm-<run>", uid: "<uid:1>", resourceVersion: "<rv:1>" } }
 * ```
 */
export const outcome = (n: Normaliser, o: Outcome): Outcome => ({ ...o, body: value(n, o.body) });
