/**
 * The server-side printers of the built-in types the emulator serves: for each, the columns
 * kube-apiserver v1.34 declares (names, types, formats, priorities, in its order; the server always
 * prints the wide form, so priority-1 columns carry cells too) and how a row's cells are computed
 * from an object, with the same placeholders (`<none>`, `<unknown>`) and ages as the real printers.
 * Column descriptions are left empty (a documented deviation).
 */
import { getPath, isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import { podState } from "./internal/PodState.ts";

/** One column: name, type, priority (1 = wide only in kubectl), and format. */
export type Column = readonly [name: string, type: string, priority?: number, format?: string];

/** The columns of a type and how each object becomes its row's cells. */
export interface Printer {
  readonly columns: ReadonlyArray<Column>;
  /** `since` renders a timestamp as an age relative to now (`<unknown>` when absent). */
  readonly cells: (object: JsonObject, since: (timestamp: unknown) => string) => ReadonlyArray<unknown>;
}

const NAME: Column = ["Name", "string", 0, "name"];
const AGE: Column = ["Age", "string"];

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : []);
const count = (value: unknown): number =>
  isObject(value) ? Object.keys(value).length : Array.isArray(value) ? value.length : 0;
const num = (value: unknown): number => (typeof value === "number" ? value : 0);
const orNone = (value: string | undefined): string =>
  value === undefined || value === "" ? "<none>" : value;
const nameOf = (o: JsonObject): string => str(metaOf(o).name) ?? "";
const ageOf = (o: JsonObject, since: (timestamp: unknown) => string) => since(metaOf(o).creationTimestamp);

/** `k1=v1,k2=v2` sorted by key, as labels.FormatLabels prints a map (`<none>` when empty). */
const formatLabels = (labels: unknown): string => {
  if (!isObject(labels) || Object.keys(labels).length === 0) return "<none>";
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${String(labels[key])}`)
    .join(",");
};

/** A label selector as metav1.FormatLabelSelector prints it. */
const formatSelector = (selector: unknown): string => {
  if (!isObject(selector)) return "<none>";
  const parts: Array<string> = [];
  const labels = selector.matchLabels;
  if (isObject(labels))
    for (const key of Object.keys(labels).sort()) parts.push(`${key}=${String(labels[key])}`);
  for (const expression of list(selector.matchExpressions)) {
    if (!isObject(expression)) continue;
    const key = str(expression.key) ?? "";
    const values = list(expression.values).map(String).sort().join(",");
    switch (expression.operator) {
      case "In":
        parts.push(`${key} in (${values})`);
        break;
      case "NotIn":
        parts.push(`${key} notin (${values})`);
        break;
      case "Exists":
        parts.push(key);
        break;
      case "DoesNotExist":
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.length === 0 ? "<none>" : parts.join(",");
};

/** Container names and images of a pod spec, comma-separated. */
const containerCells = (spec: unknown): [string, string] => {
  const containers = list(getPath(spec, ["containers"])).filter(isObject);
  return [
    containers.map((c) => str(c.name) ?? "").join(","),
    containers.map((c) => str(c.image) ?? "").join(","),
  ];
};

const pods: Printer = {
  columns: [
    NAME,
    ["Ready", "string"],
    ["Status", "string"],
    ["Restarts", "string"],
    AGE,
    ["IP", "string", 1],
    ["Node", "string", 1],
    ["Nominated Node", "string", 1],
    ["Readiness Gates", "string", 1],
  ],
  cells: (o, since) => {
    const state = podState(o, since);
    const gates = list(getPath(o, ["spec", "readinessGates"])).filter(isObject);
    const conditions = list(getPath(o, ["status", "conditions"])).filter(isObject);
    const trueGates = gates.filter((gate) =>
      conditions.some((c) => c.type === gate.conditionType && c.status === "True"),
    ).length;
    const firstIp = list(getPath(o, ["status", "podIPs"])).find(isObject);
    return [
      nameOf(o),
      state.ready,
      state.reason,
      state.restarts,
      ageOf(o, since),
      orNone(str(firstIp?.ip)),
      orNone(str(getPath(o, ["spec", "nodeName"]))),
      orNone(str(getPath(o, ["status", "nominatedNodeName"]))),
      gates.length === 0 ? "<none>" : `${trueGates}/${gates.length}`,
    ];
  },
};

const serviceExternalIp = (service: JsonObject): string => {
  const externalIps = list(getPath(service, ["spec", "externalIPs"])).map(String);
  switch (getPath(service, ["spec", "type"])) {
    case "ClusterIP":
    case "NodePort":
      return externalIps.length > 0 ? externalIps.join(",") : "<none>";
    case "LoadBalancer": {
      const ingress = list(getPath(service, ["status", "loadBalancer", "ingress"]))
        .filter(isObject)
        .map((i) => str(i.ip) || str(i.hostname) || "")
        .filter((v) => v !== "");
      const all = [...[...new Set(ingress)].sort(), ...externalIps];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(getPath(service, ["spec", "externalName"])) ?? "";
    default:
      return "<unknown>";
  }
};

const services: Printer = {
  columns: [
    NAME,
    ["Type", "string"],
    ["Cluster-IP", "string"],
    ["External-IP", "string"],
    ["Port(s)", "string"],
    AGE,
    ["Selector", "string", 1],
  ],
  cells: (o, since) => {
    const ports = list(getPath(o, ["spec", "ports"]))
      .filter(isObject)
      .map((p) =>
        num(p.nodePort) > 0
          ? `${num(p.port)}:${num(p.nodePort)}/${String(p.protocol)}`
          : `${num(p.port)}/${String(p.protocol)}`,
      )
      .join(",");
    return [
      nameOf(o),
      str(getPath(o, ["spec", "type"])) ?? "",
      orNone(str(list(getPath(o, ["spec", "clusterIPs"]))[0])),
      serviceExternalIp(o),
      ports === "" ? "<none>" : ports,
      ageOf(o, since),
      formatLabels(getPath(o, ["spec", "selector"])),
    ];
  },
};

/** An event's fields in either API (core/v1 or events.k8s.io/v1), as the internal Event has them. */
const eventFields = (o: JsonObject) => {
  const core = o.involvedObject !== undefined || o.apiVersion === "v1";
  const pick = (coreName: string, eventsName: string) => (core ? o[coreName] : o[eventsName]);
  const source = isObject(pick("source", "deprecatedSource"))
    ? (pick("source", "deprecatedSource") as JsonObject)
    : {};
  return {
    involved: isObject(pick("involvedObject", "regarding"))
      ? (pick("involvedObject", "regarding") as JsonObject)
      : {},
    message: str(pick("message", "note")) ?? "",
    first: pick("firstTimestamp", "deprecatedFirstTimestamp"),
    last: pick("lastTimestamp", "deprecatedLastTimestamp"),
    count: num(pick("count", "deprecatedCount")),
    component: str(source.component) || str(o.reportingController) || "",
    host: str(source.host) || str(o.reportingInstance) || "",
  };
};

const events: Printer = {
  columns: [
    ["Last Seen", "string"],
    ["Type", "string"],
    ["Reason", "string"],
    ["Object", "string"],
    ["Subobject", "string", 1],
    ["Source", "string", 1],
    ["Message", "string"],
    ["First Seen", "string", 1],
    ["Count", "string", 1],
    ["Name", "string", 1, "name"],
  ],
  cells: (o, since) => {
    const e = eventFields(o);
    const present = (t: unknown) => typeof t === "string" && t !== "";
    const first = present(e.first) ? since(e.first) : since(o.eventTime);
    let last = present(e.last) ? since(e.last) : first;
    let count = e.count;
    if (isObject(o.series)) {
      last = since(o.series.lastObservedTime);
      count = num(o.series.count);
    } else if (count === 0) count = 1;
    const kind = (str(e.involved.kind) ?? "").toLowerCase();
    const target = str(e.involved.name) ? `${kind}/${str(e.involved.name)}` : kind;
    return [
      last,
      str(o.type) ?? "",
      str(o.reason) ?? "",
      target,
      str(e.involved.fieldPath) ?? "",
      e.host === "" ? e.component : `${e.component}, ${e.host}`,
      e.message.trim(),
      first,
      count,
      nameOf(o),
    ];
  },
};

const deployments: Printer = {
  columns: [
    NAME,
    ["Ready", "string"],
    ["Up-to-date", "integer"],
    ["Available", "integer"],
    AGE,
    ["Containers", "string", 1],
    ["Images", "string", 1],
    ["Selector", "string", 1],
  ],
  cells: (o, since) => {
    const status = (key: string) => num(getPath(o, ["status", key]));
    const [names, images] = containerCells(getPath(o, ["spec", "template", "spec"]));
    return [
      nameOf(o),
      `${status("readyReplicas")}/${num(getPath(o, ["spec", "replicas"]))}`,
      status("updatedReplicas"),
      status("availableReplicas"),
      ageOf(o, since),
      names,
      images,
      formatSelector(getPath(o, ["spec", "selector"])),
    ];
  },
};

const simple = (
  columns: ReadonlyArray<Column>,
  cells: (o: JsonObject) => ReadonlyArray<unknown>,
): Printer => ({
  columns: [NAME, ...columns, AGE],
  cells: (o, since) => [nameOf(o), ...cells(o), ageOf(o, since)],
});

const webhooks = simple([["Webhooks", "integer"]], (o) => [count(o.webhooks)]);

/** The printers by `group/plural` (the core group is empty). */
export const printers: Readonly<Record<string, Printer>> = {
  "/pods": pods,
  "/services": services,
  "/events": events,
  "events.k8s.io/events": events,
  "/configmaps": simple([["Data", "string"]], (o) => [count(o.data) + count(o.binaryData)]),
  "/secrets": simple(
    [
      ["Type", "string"],
      ["Data", "string"],
    ],
    (o) => [str(o.type) ?? "", count(o.data)],
  ),
  "/namespaces": simple([["Status", "string"]], (o) => [str(getPath(o, ["status", "phase"])) ?? ""]),
  "coordination.k8s.io/leases": simple([["Holder", "string"]], (o) => [
    str(getPath(o, ["spec", "holderIdentity"])) ?? "",
  ]),
  "apps/deployments": deployments,
  "apiextensions.k8s.io/customresourcedefinitions": {
    columns: [NAME, ["Created At", "date"]],
    cells: (o) => [nameOf(o), metaOf(o).creationTimestamp ?? null],
  },
  "admissionregistration.k8s.io/validatingwebhookconfigurations": webhooks,
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": webhooks,
};
