/**
 * Sharded list and watch (the `ShardedListAndWatch` gate on both servers): ranges built from the
 * hashes of the sequence's own objects' uids, so that what a range selects is known whatever the
 * uids are (start inclusive, end exclusive, several terms, the namespace as the hashed field, the
 * whole space), the echoed `shardInfo` (on ConfigMaps; not on Tables nor custom resources),
 * pagination, watches from a resourceVersion, with initial events and their bookmark, and
 * selectors the server rejects, on lists and watches.
 */
import { ShardRange } from "@kopf/structs";
import type { Earlier, Select, Sequence } from "../Interaction.ts";
import {
  cms,
  collect,
  configMap,
  del,
  established,
  eventSummary,
  get,
  MERGE,
  namespace,
  patch,
  poll,
  post,
  rvOf,
  SYSTEM_OBJECTS,
  uidOf,
  watch,
} from "./internal/steps.ts";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const UID = "object.metadata.uid";
const hex = (value: bigint): string => `0x${value.toString(16).padStart(16, "0")}`;
const term = (field: string, start: bigint, end: bigint) =>
  `shardRange(${field}, '${hex(start)}', '${hex(end)}')`;
const query = (selector: string) => `shardSelector=${encodeURIComponent(selector)}`;
const hashOf = (earlier: Earlier, step: string) => ShardRange.fnv1a64(uidOf(earlier, step));
/** The range holding exactly the hash of an earlier step's object's uid. */
const only = (earlier: Earlier, step: string) => term(UID, hashOf(earlier, step), hashOf(earlier, step) + 1n);

type ListBody = {
  readonly metadata?: { readonly shardInfo?: { readonly selector?: string } };
  readonly items?: ReadonlyArray<{ readonly metadata?: { readonly name?: string; readonly uid?: string } }>;
  readonly rows?: ReadonlyArray<unknown>;
};

/** Hash bounds taken from uids differ between the servers; the whole space's do not. */
const masked = (selector: string) =>
  selector.replace(/0x[0-9a-f]{16,17}/g, (h) =>
    h === "0x0000000000000000" || h === "0x10000000000000000" || /^0x[048c]0{15}$/.test(h) ? h : "0x…",
  );

/** The names listed (without the control plane's own objects) and the echoed selector. */
const listed: Select = (body) => {
  const list = body as ListBody;
  if (!Array.isArray(list.items)) return body;
  const echoed = list.metadata?.shardInfo?.selector;
  return {
    names: list.items.map((i) => i.metadata?.name).filter((n) => n === undefined || !SYSTEM_OBJECTS.has(n)),
    shardInfo: echoed === undefined ? "absent" : masked(echoed),
  };
};

/** Whether every item's uid hashes into `[start, end)` (the halves hold random shares). */
const within =
  (start: bigint, end: bigint): Select =>
  (body) => {
    const list = body as ListBody;
    if (!Array.isArray(list.items)) return body;
    return {
      inRange: list.items.every((i) => {
        const h = ShardRange.fnv1a64(i.metadata?.uid ?? "");
        return start <= h && h < end;
      }),
      shardInfo: list.metadata?.shardInfo?.selector ?? "absent",
    };
  };

const table: Select = (body) => {
  const t = body as ListBody & { kind?: string };
  return Array.isArray(t.rows)
    ? { kind: t.kind, rows: t.rows.length, shardInfo: t.metadata?.shardInfo ?? "absent" }
    : body;
};

const HALF = 1n << 63n;
const INVALID: ReadonlyArray<[string, string]> = [
  ["short-bound", `shardRange(${UID}, '0x0', '0x8000000000000000')`],
  ["upper-case", `shardRange(${UID}, '0x0000000000000000', '0x8000000000000ABC')`],
  ["empty-range", `shardRange(${UID}, '0x8000000000000000', '0x8000000000000000')`],
  ["past-2-64", `shardRange(${UID}, '0x0000000000000000', '0x20000000000000000')`],
  ["field-name", "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')"],
  ["field-literal", `shardRange('${UID}', '0x0000000000000000', '0x8000000000000000')`],
  ["two-arguments", `shardRange(${UID}, '0x0000000000000000')`],
  ["int-bound", `shardRange(${UID}, 0, '0x8000000000000000')`],
  ["and", `${term(UID, 0n, HALF)} && ${term(UID, HALF, ShardRange.SPACE)}`],
  ["mixed-fields", `${term(UID, 0n, HALF)} || ${term("object.metadata.namespace", HALF, ShardRange.SPACE)}`],
  ["not-a-call", "true"],
  ["unclosed", `shardRange(${UID}, '0x0000000000000000', '0x8000000000000000'`],
  ["dangling-or", `${term(UID, 0n, HALF)} ||`],
  ["blank", " "],
];

/** A minimal namespaced CRD whose objects keep any spec. */
const gadgets = (group: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
});

/** The sharding sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-shard-${run}`;
  const group = `s${run}.example.com`;
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`;
  const gadgetsPath = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  const list = (name: string, selector: (e: Earlier) => string, select: Select = listed, extra = "") =>
    get(name, (e) => `${cms(ns)}?labelSelector=app&${query(selector(e))}${extra}`, { select });
  const from =
    (step: string, selector: (e: Earlier) => string, extra = "") =>
    (e: Earlier) =>
      `${cms(ns)}?labelSelector=app&resourceVersion=${rvOf(e, step)}&${query(selector(e))}${extra}`;
  return {
    name: "sharding",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      ...["a", "b", "c", "d"].map((name) =>
        post(`create-${name}`, cms(ns), configMap(name, {}, { labels: { app: "x" } })),
      ),
      list("whole", () => term(UID, 0n, ShardRange.SPACE)),
      list("low-half", () => term(UID, 0n, HALF), within(0n, HALF)),
      list("high-half", () => term(UID, HALF, ShardRange.SPACE), within(HALF, ShardRange.SPACE)),
      list("only-a", (e) => only(e, "create-a")),
      list(
        "start-inclusive",
        (e) => term(UID, hashOf(e, "create-b"), ShardRange.SPACE),
        (body) => ({
          hasB: ((body as ListBody).items ?? []).some((i) => i.metadata?.name === "b"),
        }),
      ),
      list(
        "end-exclusive",
        (e) => term(UID, 0n, hashOf(e, "create-b")),
        (body) => ({
          hasB: ((body as ListBody).items ?? []).some((i) => i.metadata?.name === "b"),
        }),
      ),
      list("two-terms", (e) => `${only(e, "create-c")} || ${only(e, "create-a")}`),
      list("overlapping-terms", (e) => `${only(e, "create-a")} || ${only(e, "create-a")}`),
      list("by-namespace", () => {
        const h = ShardRange.fnv1a64(ns);
        return term("object.metadata.namespace", h, h + 1n);
      }),
      list("double-quoted", (e) => only(e, "create-d").replaceAll("'", '"')),
      list(
        "paged",
        () => term(UID, 0n, ShardRange.SPACE),
        (body) => ({
          ...(listed(body) as object),
          more: typeof (body as { metadata?: { continue?: string } }).metadata?.continue === "string",
        }),
        "&limit=2",
      ),
      get("empty-parameter", `${cms(ns)}?labelSelector=app&shardSelector=`, { select: listed }),
      get("table", (e) => `${cms(ns)}?labelSelector=app&${query(only(e, "create-a"))}`, {
        accept: TABLE,
        select: table,
      }),
      ...INVALID.map(([name, selector]) => get(`invalid-${name}`, `${cms(ns)}?${query(selector)}`)),
      watch(
        "watch-only-a",
        "a",
        from("create-d", (e) => only(e, "create-a")),
      ),
      watch(
        "watch-resumed-c",
        "c",
        from("create-a", (e) => only(e, "create-c")),
      ),
      watch(
        "watch-initial-b",
        "b",
        from(
          "create-d",
          (e) => only(e, "create-b"),
          "&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
        ),
      ),
      watch("watch-invalid", "bad", `${cms(ns)}?${query(`shardRange(${UID}, '0x1', '0x2')`)}`),
      ...["a", "b", "c", "d"].map((name) =>
        patch(`update-${name}`, cms(ns, name), MERGE, { data: { k: "v" } }),
      ),
      del("delete-a", cms(ns, "a"), undefined, { select: () => "deleted" }),
      collect("events-only-a", "a", 3, 3_000, eventSummary),
      collect("events-resumed-c", "c", 3, 3_000, eventSummary),
      // Periodic bookmarks come when the server's timer says; only the initial-events one counts.
      collect("events-initial-b", "b", 3, 3_000, (body) => {
        const events = eventSummary(body);
        return Array.isArray(events)
          ? events.filter(
              (e: { type?: string; initialEventsEnd?: string }) =>
                e.type !== "BOOKMARK" || e.initialEventsEnd !== undefined,
            )
          : events;
      }),
      collect("events-invalid", "bad", 1, 3_000),
      post("create-crd", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgets(group), {
        select: () => "created",
      }),
      poll("established", crdPath, established, 30_000, { select: () => "established" }),
      post(
        "create-gadget",
        gadgetsPath,
        { apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name: "g1" } },
        {
          select: () => "created",
        },
      ),
      post(
        "create-gadget-2",
        gadgetsPath,
        { apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name: "g2" } },
        {
          select: () => "created",
        },
      ),
      get("gadgets-only-g1", (e) => `${gadgetsPath}?${query(only(e, "create-gadget"))}`, { select: listed }),
      get("gadgets-invalid", `${gadgetsPath}?${query("shardRange(object.metadata.uid, '0x0', '0x1')")}`),
      del("delete-crd", crdPath, undefined, { select: () => "deleted" }),
      del("cleanup", `/api/v1/namespaces/${ns}`, undefined, { select: () => "deleted" }),
    ],
  };
};
