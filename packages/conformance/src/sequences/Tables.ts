/**
 * Server-side printing (what `kubectl get` shows): the meta.k8s.io Tables of the built-in kinds
 * an operator meets — pods, services, events, configmaps, secrets, service accounts, namespaces,
 * leases — for lists, single objects and watch events, compared by their columns (name, type,
 * format, priority) and cells. Ages and allocated cluster IPs differ by nature and are masked;
 * column descriptions are not compared.
 */
import type { Select, Sequence } from "../Interaction.ts";
import { collect, configMap, get, namespace, pick, post, watch } from "./internal/steps.ts";

/** What kubectl sends to get Tables (with plain JSON as the fallback). */
export const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/** Columns whose cells depend on when or where the request ran. */
const MASKED: ReadonlySet<string> = new Set(["Age", "Last Seen", "First Seen", "Created At", "Cluster-IP"]);

interface Column {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly priority: number;
}

interface Table {
  readonly kind?: string;
  readonly columnDefinitions?: ReadonlyArray<Column> | null;
  readonly rows?: ReadonlyArray<{ readonly cells: ReadonlyArray<unknown> }>;
}

const shapeOf = (table: Table, columns: ReadonlyArray<Column> | undefined) => ({
  kind: table.kind,
  columns:
    table.columnDefinitions === null || table.columnDefinitions === undefined
      ? null
      : table.columnDefinitions.map(({ name, type, format, priority }) => ({ name, type, format, priority })),
  rows: (table.rows ?? []).map((row) =>
    row.cells.map((cell, i) => (MASKED.has(columns?.[i]?.name ?? "") ? "<masked>" : cell)),
  ),
});

/** A Table narrowed to its columns and masked cells (any other body as it is). */
export const tableShape: Select = (body) => {
  const table = body as Table;
  if (table?.kind !== "Table") return body;
  return shapeOf(table, table.columnDefinitions ?? undefined);
};

/** Watch events whose objects are Tables: the column definitions come with the first one only. */
export const tableEvents: Select = (body) => {
  if (!Array.isArray(body)) return body;
  let columns: ReadonlyArray<Column> | undefined;
  return body.map((event: { type?: string; object?: Table }) => {
    const table = event.object ?? {};
    columns = table.columnDefinitions ?? columns;
    return { type: event.type, object: table.kind === "Table" ? shapeOf(table, columns) : table.kind };
  });
};

/** The tables sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-tables-${run}`;
  const at = (plural: string, name?: string) =>
    `/api/v1/namespaces/${ns}/${plural}${name === undefined ? "" : `/${name}`}`;
  const table = { select: tableShape, accept: TABLE };
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p1" },
    spec: {
      containers: [{ name: "main", image: "registry.invalid/app:1" }],
      readinessGates: [{ conditionType: "example.com/ready" }],
    },
  };
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "s1" },
    spec: { selector: { b: "2", a: "1" }, ports: [{ port: 80, protocol: "TCP" }] },
  };
  const externalName = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "s2" },
    spec: { type: "ExternalName", externalName: "db.example.com" },
  };
  const event = {
    apiVersion: "v1",
    kind: "Event",
    // Selected by its label when listed: the real API server posts events of its own into the
    // namespace now and then (its cluster-IP repair loop, racing the service's creation).
    metadata: { name: "e1", labels: { conformance: "tables" } },
    involvedObject: {
      apiVersion: "v1",
      kind: "Pod",
      name: "p1",
      namespace: ns,
      fieldPath: "spec.containers{main}",
    },
    reason: "Checked",
    message: "  all fine  ",
    type: "Normal",
    source: { component: "kopf", host: "h1" },
    count: 3,
    firstTimestamp: "2026-01-01T00:00:00Z",
    lastTimestamp: "2026-01-01T00:05:00Z",
  };
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "k1" },
    type: "Opaque",
    data: { a: "YQ==" },
  };
  const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa1" } };
  const lease = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "l1" },
    spec: { holderIdentity: "me" },
  };
  return {
    name: "tables",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("pod", at("pods"), pod),
      // The allocated cluster IP differs by nature: the answer is compared by its kind only.
      post("service", at("services"), service, { select: pick("kind") }),
      post("service-external-name", at("services"), externalName),
      post("event", at("events"), event),
      post("configmap", at("configmaps"), configMap("c1", { a: "1", b: "2" })),
      post("secret", at("secrets"), secret),
      post("serviceaccount", at("serviceaccounts"), account),
      post("lease", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, lease),
      get("table-pods", at("pods"), table),
      get("table-pod", at("pods", "p1"), table),
      get("table-services", at("services"), table),
      get("table-events", `${at("events")}?labelSelector=conformance%3Dtables`, table),
      get(
        "table-events-v1",
        `/apis/events.k8s.io/v1/namespaces/${ns}/events?labelSelector=conformance%3Dtables`,
        table,
      ),
      get("table-configmap", at("configmaps", "c1"), table),
      get("table-secret", at("secrets", "k1"), table),
      get("table-serviceaccount", at("serviceaccounts", "sa1"), table),
      get("table-namespace", `/api/v1/namespaces/${ns}`, table),
      get("table-lease", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l1`, table),
      watch("watch-configmaps", "configmaps", `${at("configmaps")}?fieldSelector=metadata.name%3Dc1`, TABLE),
      post("configmap-during-watch", at("configmaps"), configMap("c2")),
      {
        kind: "request",
        name: "configmap-modified",
        method: "PATCH",
        path: at("configmaps", "c1"),
        body: { data: { c: "3" } },
        contentType: "application/merge-patch+json",
      },
      collect("watch-configmaps-events", "configmaps", 2, 5_000, tableEvents),
      { kind: "request", name: "cleanup", method: "DELETE", path: `/api/v1/namespaces/${ns}` },
    ],
  };
};
