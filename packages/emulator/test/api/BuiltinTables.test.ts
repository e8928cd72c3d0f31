/**
 * The built-in printers, table by table: pods (readiness, the status reason from phase, waiting
 * and terminated containers, deletion; restarts with the last restart's age), services (external
 * IP per type, ports, selector), events of both APIs, and deployments' wide columns.
 */
import { describe, expect, it } from "vitest";
import * as BuiltinTables from "../../src/api/BuiltinTables.ts";

const since = (timestamp: unknown) =>
  typeof timestamp === "string" && timestamp !== "" ? `age(${timestamp})` : "<unknown>";
const cells = (key: string, object: Record<string, unknown>) =>
  (BuiltinTables.printers[key] as BuiltinTables.Printer).cells(object, since);

const pod = (status: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  metadata: { name: "p", creationTimestamp: "T0", ...extra },
  spec: { containers: [{ name: "a" }, { name: "b" }] },
  status,
});
const running = (ready: boolean) => ({ ready, restartCount: 0, state: { running: {} } });

describe("pods", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, ReadonlyArray<unknown>]>([
    ["pending, nothing known", { phase: "Pending" }, {}, ["0/2", "Pending", "0"]],
    [
      "running, one ready",
      { phase: "Running", containerStatuses: [running(true), running(false)] },
      {},
      ["1/2", "Running", "0"],
    ],
    [
      "a waiting reason wins",
      {
        phase: "Running",
        containerStatuses: [
          {
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { finishedAt: "T9" } },
          },
        ],
      },
      {},
      ["0/2", "CrashLoopBackOff", "3 (age(T9) ago)"],
    ],
    [
      "a terminated container without a reason shows its exit code",
      { phase: "Failed", containerStatuses: [{ state: { terminated: { exitCode: 2 } } }] },
      {},
      ["0/2", "ExitCode:2", "0"],
    ],
    ["deleted while running", { phase: "Running" }, { deletionTimestamp: "T5" }, ["0/2", "Terminating", "0"]],
    [
      "a status reason overrides the phase",
      { phase: "Failed", reason: "Evicted" },
      {},
      ["0/2", "Evicted", "0"],
    ],
  ])("%s", (_, status, meta, expected) => {
    const row = cells("/pods", pod(status, meta));
    expect(row.slice(1, 4)).toEqual(expected);
    expect(row[0]).toBe("p");
    expect(row[4]).toBe("age(T0)");
    expect(row.slice(5)).toEqual(["<none>", "<none>", "<none>", "<none>"]);
  });
});

describe("services", () => {
  it.each<[Record<string, unknown>, Record<string, unknown>, ReadonlyArray<unknown>]>([
    [
      {
        type: "ClusterIP",
        clusterIPs: ["10.0.0.1"],
        ports: [{ port: 80, protocol: "TCP" }],
        selector: { b: "2", a: "1" },
      },
      {},
      ["ClusterIP", "10.0.0.1", "<none>", "80/TCP"],
    ],
    [
      {
        type: "NodePort",
        clusterIPs: ["10.0.0.2"],
        externalIPs: ["1.2.3.4"],
        ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }],
      },
      {},
      ["NodePort", "10.0.0.2", "1.2.3.4", "80:30080/TCP"],
    ],
    [
      { type: "LoadBalancer", clusterIPs: ["10.0.0.3"] },
      {},
      ["LoadBalancer", "10.0.0.3", "<pending>", "<none>"],
    ],
    [
      { type: "LoadBalancer" },
      { loadBalancer: { ingress: [{ hostname: "lb.example" }] } },
      ["LoadBalancer", "<none>", "lb.example", "<none>"],
    ],
    [
      { type: "ExternalName", externalName: "db.example" },
      {},
      ["ExternalName", "<none>", "db.example", "<none>"],
    ],
  ])("%j", (spec, status, expected) => {
    const row = cells("/services", { metadata: { name: "s" }, spec, status });
    expect(row.slice(1, 5)).toEqual(expected);
  });

  it("prints the selector sorted by key", () => {
    expect(
      cells("/services", { metadata: { name: "s" }, spec: { selector: { b: "2", a: "1" } } }).at(-1),
    ).toBe("a=1,b=2");
  });
});

describe("events", () => {
  it("prints a core/v1 event", () => {
    const event = {
      apiVersion: "v1",
      metadata: { name: "e" },
      involvedObject: { kind: "Pod", name: "p", fieldPath: "spec.containers{a}" },
      reason: "Started",
      message: " hello \n",
      type: "Normal",
      source: { component: "kubelet", host: "node-1" },
      firstTimestamp: "T1",
      lastTimestamp: "T2",
      count: 3,
    };
    expect(cells("/events", event)).toEqual([
      "age(T2)",
      "Normal",
      "Started",
      "pod/p",
      "spec.containers{a}",
      "kubelet, node-1",
      "hello",
      "age(T1)",
      3,
      "e",
    ]);
  });

  it("prints an events.k8s.io/v1 event (eventTime, series, reporting controller)", () => {
    const event = {
      apiVersion: "events.k8s.io/v1",
      metadata: { name: "e" },
      regarding: { kind: "KopfExample", name: "x" },
      reason: "Logging",
      note: "done",
      type: "Warning",
      eventTime: "T1",
      reportingController: "kopf",
      series: { count: 4, lastObservedTime: "T3" },
    };
    expect(cells("events.k8s.io/events", event)).toEqual([
      "age(T3)",
      "Warning",
      "Logging",
      "kopfexample/x",
      "",
      "kopf",
      "done",
      "age(T1)",
      4,
      "e",
    ]);
  });

  it("counts a singleton event as 1 and falls back to the first timestamp", () => {
    const row = cells("/events", {
      apiVersion: "v1",
      metadata: { name: "e" },
      involvedObject: { kind: "Node" },
      eventTime: "T7",
    });
    expect([row[0], row[3], row[7], row[8]]).toEqual(["age(T7)", "node", "age(T7)", 1]);
  });
});

describe("deployments", () => {
  it("prints the wide columns: containers, images and the selector", () => {
    const deployment = {
      metadata: { name: "web" },
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: "web" },
          matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
        },
        template: {
          spec: {
            containers: [
              { name: "main", image: "nginx:1" },
              { name: "side", image: "busybox" },
            ],
          },
        },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(cells("apps/deployments", deployment)).toEqual([
      "web",
      "2/3",
      3,
      2,
      "<unknown>",
      "main,side",
      "nginx:1,busybox",
      "app=web,tier in (a,b)",
    ]);
  });
});
