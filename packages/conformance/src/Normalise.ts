/**
 * Normalisation of one server's outcomes before comparison: values that legitimately differ
 * between two servers replaying the same sequence are replaced by placeholders that keep their
 * identity within the sequence. UIDs become `<uid:NAME>` after the object's name (or `<uid:1>`…
 * by first appearance when no name is at hand); an object's resourceVersions become
 * `<rv:NAME@1>`, `<rv:NAME@2>`… in the order that object's versions appear (so "the same version
 * as the create returned" stays visible, absolute numbers do not matter, and a write that only
 * one server makes shifts only that object's versions); other versions become `<rv:1>`…; a list's or bookmark's
 * own resourceVersion becomes `<rv:list>` / `<rv:bookmark>` (the real server reports its global
 * revision there, which includes unrelated writes); timestamps become `<time>`; names generated
 * from `generateName` become `<generated:1>`…; continue tokens become `<continue>`; and the
 * run's unique suffix becomes `<run>` wherever it appears in a string. Known uids, versions and
 * generated names are also replaced inside strings such as error messages. The entries of
 * `managedFields` are put in one order (operation, manager, apiVersion, subresource): the server
 * orders them by the second each was written in, so two writes in one second on one server and
 * across a second boundary on the other would otherwise differ in order alone.
 */
import type { Outcome } from "./Interaction.ts";

/** Placeholder tables for one sequence on one server. */
export interface Normaliser {
  readonly run: string;
  readonly uids: Map<string, string>;
  /** How many uids each (normalised) object name has had. */
  readonly names: Map<string, number>;
  /** How many versions each object (by uid placeholder) has had. */
  readonly history: Map<string, number>;
  readonly versions: Map<string, string>;
  readonly generated: Map<string, string>;
}

/** A fresh normaliser for one sequence replayed on one server. */
export const make = (run: string): Normaliser => ({
  run,
  uids: new Map(),
  names: new Map(),
  history: new Map(),
  versions: new Map(),
  generated: new Map(),
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
 * The placeholder of a uid: named after the object when its name is known (`<uid:cm-<run>>`,
 * `<uid:cm-<run>#2>` for a second object of that name), so that an extra object on one server
 * does not shift every later placeholder; an ordinal otherwise.
 */
const uidPlaceholder = (n: Normaliser, uid: string, name: string | undefined): string => {
  const known = n.uids.get(uid);
  if (known !== undefined) return known;
  const label = name === undefined ? "" : normaliseString(n, name);
  const count = (n.names.get(label) ?? 0) + 1;
  n.names.set(label, count);
  const next = label === "" ? `<uid:${count}>` : count === 1 ? `<uid:${label}>` : `<uid:${label}#${count}>`;
  n.uids.set(uid, next);
  return next;
};

/** An object's version: `<rv:NAME@k>` for the k-th distinct version seen of that object. */
const objectVersion = (n: Normaliser, uid: string, rv: string): void => {
  if (n.versions.has(rv)) return;
  const owner = n.uids.get(uid);
  if (owner === undefined) return;
  const k = (n.history.get(owner) ?? 0) + 1;
  n.history.set(owner, k);
  n.versions.set(rv, `<rv:${owner.slice("<uid:".length, -1)}@${k}>`);
};

/**
 * First pass, in document order: register generated names, then uids (with the names next to
 * them: metadata, owner references, Status details) and object versions, so that they are
 * replaced wherever they appear — also in keys (managedFields name owner references by uid) and
 * before the field that defines them.
 */
const collectGenerated = (n: Normaliser, value: unknown): void => {
  if (Array.isArray(value)) {
    for (const item of value) collectGenerated(n, item);
    return;
  }
  if (!isRecord(value)) return;
  if (typeof value.generateName === "string" && typeof value.name === "string") {
    if (
      value.generateName !== "" &&
      value.name.startsWith(value.generateName) &&
      value.name !== value.generateName
    ) {
      placeholder(n.generated, value.name, "generated");
    }
  }
  if (typeof value.uid === "string" && value.uid !== "") {
    uidPlaceholder(n, value.uid, typeof value.name === "string" ? value.name : undefined);
    if (typeof value.resourceVersion === "string" && /^\d+$/.test(value.resourceVersion)) {
      objectVersion(n, value.uid, value.resourceVersion);
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
    if (key === "uid") return uidPlaceholder(n, value, undefined);
    if (key === "resourceVersion" && /^\d+$/.test(value)) return placeholder(n.versions, value, "rv");
    // Continue tokens are opaque and encode the server's current revision: only "there is a next
    // page" is comparable.
    if (key === "continue" && value !== "") return "<continue>";
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
        : k === "managedFields" && Array.isArray(v)
          ? inOneOrder(walk(n, v, k, "object") as Array<unknown>)
          : walk(n, v, k, "object");
  }
  return out;
};

/** managedFields entries by operation, manager, apiVersion and subresource (a stable sort). */
const inOneOrder = (entries: Array<unknown>): Array<unknown> => {
  const key = (e: unknown): string =>
    isRecord(e)
      ? [e.operation, e.manager, e.apiVersion, e.subresource]
          .map((p) => (typeof p === "string" ? p : ""))
          .join("\u0000")
      : "";
  return entries
    .map((e, i) => ({ e, i, k: key(e) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map((x) => x.e);
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
export const outcome = (n: Normaliser, o: Outcome): Outcome => ({
  ...o,
  body: value(n, o.body),
  ...(o.warnings === undefined ? {} : { warnings: o.warnings.map((w) => value(n, w) as string) }),
});
