/**
 * GET of objects and lists: label and field selectors, `limit`/`continue` pagination with opaque
 * tokens, and `resourceVersion`/`resourceVersionMatch` semantics — lists at an older
 * resourceVersion are rebuilt from the event history, and 410 Expired once it is forgotten.
 */
import * as Result from "effect/Result";
import type { ApiRequest } from "./Emulator.ts";
import * as EventsConversion from "./EventsConversion.ts";
import * as FieldError from "./FieldError.ts";
import type { Resolved } from "./internal/Core.ts";
import { goJsonError } from "./internal/GoJson.ts";
import { isObject, type JsonObject, metaOf } from "./internal/Json.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import { apiVersionOf } from "./ResourceType.ts";
import * as Selectors from "./Selectors.ts";
import * as ShardSelection from "./ShardSelection.ts";
import * as Status from "./Status.ts";
import { nameOf, namespaceOf, type Store, type Table } from "./Store.ts";

export interface Selection {
  readonly labels: Selectors.LabelSelector;
  readonly fields: Selectors.FieldSelector;
  /** The `shardSelector` (only with the `ShardedListAndWatch` gate on). */
  readonly shard?: ShardSelection.ShardSelection | undefined;
}

/**
 * Parses and checks the selectors of a list or watch (unknown field labels are a 400); the
 * shard selector only when `sharded` (the `ShardedListAndWatch` gate) is on.
 */
export const parseSelection = (
  resolved: Resolved,
  query: URLSearchParams,
  sharded = false,
): Result.Result<Selection, Status.ApiError> => {
  const shard = ShardSelection.fromQuery(query, sharded);
  if (Result.isFailure(shard)) return Result.fail(shard.failure);
  const labels = Selectors.parseLabelSelector(query.get("labelSelector") ?? "");
  if (Result.isFailure(labels)) return Result.fail(Status.badRequest(labels.failure));
  const fields = Selectors.parseFieldSelector(query.get("fieldSelector") ?? "");
  if (Result.isFailure(fields)) return Result.fail(Status.badRequest(fields.failure));
  const t = resolved.type;
  const known = new Set(
    t.fieldLabelsConverted ? t.fieldSelectors : ["metadata.name", "metadata.namespace", ...t.fieldSelectors],
  );
  const fieldsWanted = fields.success.map((f) =>
    t.plural === "pods" && t.group === "" && f.field === "spec.host" ? { ...f, field: "spec.nodeName" } : f,
  );
  for (const f of fieldsWanted)
    if (!known.has(f.field))
      return Result.fail(
        Status.badRequest(
          t.fieldLabelsConverted
            ? `field label not supported: ${f.field}`
            : `"${f.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
        ),
      );
  return Result.succeed({
    labels: labels.success,
    shard: shard.success,
    fields:
      t.storedAs === undefined
        ? fieldsWanted
        : fieldsWanted.map((f) => ({ ...f, field: EventsConversion.coreFieldLabel(f.field) })),
  });
};

export const matches = (selection: Selection, obj: JsonObject): boolean =>
  (selection.shard === undefined || ShardSelection.matches(selection.shard, obj)) &&
  (selection.labels.length === 0 ||
    Selectors.matchesLabels(selection.labels, (metaOf(obj).labels ?? {}) as Record<string, unknown>)) &&
  (selection.fields.length === 0 || Selectors.matchesFields(selection.fields, obj));

/** The objects of a table in `namespace` as they were at `rv` (undefined when history is gone). */
export const snapshotAt = (
  table: Table,
  namespace: string | undefined,
  rv: number,
  store: Store,
): Array<JsonObject> | undefined => {
  if (rv >= store.rv) return table.list(namespace);
  if (rv < table.compactedRv) return undefined;
  const byKey = new Map<string, JsonObject>();
  for (const obj of table.list(namespace)) byKey.set(`${namespaceOf(obj)}/${nameOf(obj)}`, obj);
  for (let i = table.history.length - 1; i >= 0; i--) {
    const e = table.history[i];
    if (e === undefined || e.rv <= rv) break;
    const subject = e.previous ?? e.object;
    if (namespace !== undefined && namespaceOf(subject) !== namespace) continue;
    const key = `${namespaceOf(subject)}/${nameOf(subject)}`;
    if (e.type === "ADDED") byKey.delete(key);
    else if (e.previous !== undefined) byKey.set(key, e.previous);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
};

interface ContinueToken {
  readonly rv: number;
  readonly start: string;
}

/** The apiserver's continue token: unpadded base64url of `{"v":"meta.k8s.io/v1","rv":N,"start":"key\u0000"}`. */
const encodeContinue = (token: ContinueToken): string =>
  Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: token.rv, start: token.start })).toString(
    "base64url",
  );

const decodeContinue = (raw: string): Result.Result<ContinueToken, string> => {
  if (!/^[A-Za-z0-9_-]*$/.test(raw) || raw.length % 4 === 1)
    return Result.fail("continue key is not valid: illegal base64 data");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch (e) {
    const why =
      goJsonError(Buffer.from(raw, "base64url").toString("latin1")) ??
      (e instanceof Error ? e.message : String(e));
    return Result.fail(`continue key is not valid: ${why}`);
  }
  if (!isObject(parsed)) return Result.fail("continue key is not valid: not a JSON object");
  if (parsed.v !== "meta.k8s.io/v1")
    return Result.fail("continue key is not valid: server does not recognize this encoded version");
  if (typeof parsed.rv !== "number" || parsed.rv === 0)
    return Result.fail(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  if (typeof parsed.start !== "string" || parsed.start === "")
    return Result.fail("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
  return Result.succeed({ rv: parsed.rv, start: parsed.start });
};

const EXPIRED_CONTINUE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.";

const parseRv = (raw: string): number | undefined => (/^[0-9]+$/.test(raw) ? Number(raw) : undefined);

/** A list item: built-in (typed) lists carry no kind/apiVersion on items, custom resources do. */
const listItem = (resolved: Resolved, obj: JsonObject): JsonObject => {
  const served = ObjectMeta.serve(resolved.type, resolved.version, obj);
  if (resolved.type.custom) return served;
  const { kind: _k, apiVersion: _a, ...rest } = served;
  return rest;
};

/** A list answer: the List object, or the Status of a bad request. */
export const list = (
  store: Store,
  resolved: Resolved,
  request: ApiRequest,
  sharded = false,
): Result.Result<JsonObject, Status.ApiError> => {
  const q = request.query;
  const selection = parseSelection(resolved, q, sharded);
  if (Result.isFailure(selection)) return Result.fail(selection.failure);
  const limitRaw = q.get("limit");
  // A negative limit is no limit, as kube-apiserver reads it.
  const parsed = limitRaw === null || limitRaw === "" ? 0 : Number(limitRaw);
  const limit = Math.max(0, parsed);
  if (!Number.isInteger(parsed))
    return Result.fail(
      Status.badRequest(`limit: Invalid value: ${JSON.stringify(limitRaw)}: must be a non-negative integer`),
    );
  const rvRaw = q.get("resourceVersion") ?? "";
  const match = q.get("resourceVersionMatch") ?? "";
  const cont = q.get("continue") ?? "";
  const optionErrors: Array<FieldError.FieldError> = [];
  if (match !== "") {
    if (rvRaw === "")
      optionErrors.push(
        FieldError.forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
      );
    if (cont !== "")
      optionErrors.push(
        FieldError.forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ),
      );
    if (match !== "Exact" && match !== "NotOlderThan")
      optionErrors.push({
        type: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        value: match,
        detail: 'supported values: "Exact", "NotOlderThan", ""',
      });
    if (match === "Exact" && rvRaw === "0")
      optionErrors.push(
        FieldError.forbidden(
          "resourceVersionMatch",
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (q.get("sendInitialEvents") !== null)
    optionErrors.push(FieldError.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  if (optionErrors.length > 0)
    return Result.fail(Status.invalid("meta.k8s.io", "ListOptions", "", optionErrors));
  if (cont !== "" && rvRaw !== "" && rvRaw !== "0")
    return Result.fail(Status.badRequest("specifying resource version is not allowed when using continue"));
  let atRv = store.rv;
  let start = "";
  if (cont !== "") {
    const token = decodeContinue(cont);
    if (Result.isFailure(token))
      return Result.fail(Status.badRequest(`invalid continue token: ${token.failure}`));
    atRv = token.success.rv;
    start = token.success.start;
    if (atRv < resolved.table.compactedRv) return Result.fail(Status.expired(EXPIRED_CONTINUE));
  } else if (rvRaw !== "" && rvRaw !== "0") {
    const rv = parseRv(rvRaw);
    if (rv === undefined)
      return Result.fail(
        Status.badRequest(`resourceVersion: Invalid value: "${rvRaw}": must be a non-negative integer`),
      );
    if (rv > store.rv)
      return Result.fail(
        Status.make(504, "Timeout", `Timeout: Too large resource version: ${rv}, current: ${store.rv}`, {
          causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
          retryAfterSeconds: 1,
        }),
      );
    if (match === "Exact") atRv = rv;
  }
  const snapshot = snapshotAt(resolved.table, resolved.namespace, atRv, store);
  if (snapshot === undefined)
    return Result.fail(
      cont !== ""
        ? Status.expired(EXPIRED_CONTINUE)
        : Status.expired("The resourceVersion for the provided list is too old."),
    );
  const items: Array<JsonObject> = [];
  let next: string | undefined;
  let remaining = 0;
  const keyOf = (o: JsonObject) =>
    resolved.namespace === undefined && resolved.type.namespaced
      ? `${namespaceOf(o)}/${nameOf(o)}`
      : nameOf(o);
  const ordered =
    resolved.namespace === undefined && resolved.type.namespaced
      ? snapshot
          .map((o) => [keyOf(o), o] as const)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([, o]) => o)
      : snapshot;
  // The shard selector is no label or field filter to the storage: past a full page, the
  // remaining count is of the whole collection (as etcd counts keys), not only of the shard.
  const shard = selection.success.shard;
  const unsharded: Selection = { ...selection.success, shard: undefined };
  let past = 0;
  for (const obj of ordered) {
    if (start !== "" && keyOf(obj) < start) continue;
    const full = limit > 0 && items.length >= limit;
    if (full && matches(unsharded, obj)) past++;
    if (!matches(selection.success, obj)) continue;
    if (full) {
      if (next === undefined) next = `${keyOf(items[items.length - 1] as JsonObject)}\u0000`;
      remaining++;
      continue;
    }
    items.push(listItem(resolved, obj));
  }
  if (shard !== undefined) remaining = past;
  const filtered = selection.success.labels.length > 0 || selection.success.fields.length > 0;
  return Result.succeed({
    kind: resolved.type.listKind,
    apiVersion: apiVersionOf(resolved.type.group, resolved.version),
    metadata: {
      // Unstructured (custom resource) lists always carry continue, as a sorted Go map.
      ...(resolved.type.custom ? { continue: "" } : {}),
      resourceVersion: String(atRv),
      ...(next === undefined ? {} : { continue: encodeContinue({ rv: atRv, start: next }) }),
      ...(next !== undefined && !filtered ? { remainingItemCount: remaining } : {}),
      // Only typed lists carry shardInfo: k8s.io/apiserver@v0.36.3 sets it through
      // metav1.ShardedListInterface, which unstructured (custom resource) lists do not implement.
      ...(shard === undefined || resolved.type.custom ? {} : { shardInfo: { selector: shard.echo } }),
    },
    items,
  });
};

/** A single object, as served in the requested version. */
export const get = (resolved: Resolved): Result.Result<JsonObject, Status.ApiError> => {
  const obj = resolved.table.get(resolved.namespace ?? "", resolved.name ?? "");
  return obj === undefined
    ? Result.fail(Status.notFound(resolved.gr, resolved.name ?? ""))
    : Result.succeed(ObjectMeta.serve(resolved.type, resolved.version, obj));
};
