/**
 * The least-privilege rules as a table: for each kind of handler (create, delete with and without
 * the finalizer, on.event, index, daemon, timer, webhooks), each scope (one or two namespaces,
 * patterns, cluster-wide, a cluster-scoped resource) and each setting that changes the requests
 * (posting, peering, leader election, sharding, scanning, managed webhooks), and for a typed
 * resource's handlers, the exact rules; then
 * the properties every derivation has: no wildcards, no duplicates, cluster-wide rules first, the
 * same rules for the same input, unresolvable selectors reported.
 */

import { CustomResource } from "@kopf/resources";
import { Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as kopf from "kopf";
import { describe, expect, it } from "vitest";
import { Rbac, ServedResources } from "../src/index.ts";

const kopfexamples = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  singular: "kopfexample",
  shortcuts: ["kex"],
  namespaced: true,
  subresources: ["status"],
  preferred: true,
});
const configmaps = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
  preferred: true,
});
const pods = Resource.make({
  group: "",
  version: "v1",
  plural: "pods",
  kind: "Pod",
  namespaced: true,
  subresources: ["status"],
  preferred: true,
});
const clusterwidgets = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "clusterwidgets",
  kind: "ClusterWidget",
  namespaced: false,
  subresources: ["status"],
  preferred: true,
});
const widgets = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
  subresources: ["status"],
  preferred: true,
});
const known = [kopfexamples, configmaps, pods, clusterwidgets, widgets];

/** A typed resource (declared into a registry of its own, not the default one's). */
const Widget = CustomResource.define({
  group: "kopf.dev",
  kind: "Widget",
  plural: "widgets",
  versions: { v1: { spec: Schema.Struct({ size: Schema.Number }) } },
  storage: "v1",
}).pipe(Result.getOrThrow);

type Register = (registry: kopf.Registry.Registry) => void;

const noop = () => undefined;

interface Row {
  readonly name: string;
  readonly register: Register;
  readonly clusterwide?: boolean;
  readonly namespaces?: ReadonlyArray<string>;
  readonly settings?: Settings.Overrides;
  readonly expected: ReadonlyArray<string>;
}

/** A rule in one line: scope, verb, group/resource, #name. */
const line = (rule: Rbac.Rule): string =>
  `${rule.namespace ?? "*"} ${rule.verb} ${rule.apiGroup === "" ? "core" : rule.apiGroup}/${rule.resource}${
    rule.resourceName === undefined ? "" : `#${rule.resourceName}`
  }`;

const observing = [
  "* list apiextensions.k8s.io/customresourcedefinitions",
  "* watch apiextensions.k8s.io/customresourcedefinitions",
];
const following = ["* list core/namespaces", "* watch core/namespaces"];
const handled = (ns: string) => [
  `${ns} list kopf.dev/kopfexamples`,
  `${ns} watch kopf.dev/kopfexamples`,
  `${ns} patch kopf.dev/kopfexamples`,
  `${ns} patch kopf.dev/kopfexamples/status`,
];
const create: Register = (r) => r.on.create("kopfexamples", noop);

const rows: ReadonlyArray<Row> = [
  {
    name: "a create handler",
    register: create,
    expected: [...observing, ...following, ...handled("ns1"), "ns1 create core/events"],
  },
  {
    name: "an update handler",
    register: (r) => r.on.update("kopfexamples", noop),
    expected: [...observing, ...following, ...handled("ns1"), "ns1 create core/events"],
  },
  {
    name: "a delete handler: the finalizer, re-read after a rejected JSON patch",
    register: (r) => r.on.delete("kopfexamples", noop),
    expected: [
      ...observing,
      ...following,
      ...handled("ns1"),
      "ns1 get kopf.dev/kopfexamples",
      "ns1 create core/events",
    ],
  },
  {
    name: "an optional delete handler: no finalizer",
    register: (r) => r.on.delete("kopfexamples", { optional: true }, noop),
    expected: [...observing, ...following, ...handled("ns1"), "ns1 create core/events"],
  },
  {
    name: "on.event only: results into the status subresource, no events of the framework's",
    register: (r) => r.on.event("kopfexamples", noop),
    expected: [
      ...observing,
      ...following,
      "ns1 list kopf.dev/kopfexamples",
      "ns1 watch kopf.dev/kopfexamples",
      "ns1 patch kopf.dev/kopfexamples/status",
    ],
  },
  {
    name: "on.event on a resource without a status subresource: results into the object",
    register: (r) => r.on.event("configmaps", noop),
    expected: [
      ...observing,
      ...following,
      "ns1 list core/configmaps",
      "ns1 watch core/configmaps",
      "ns1 patch core/configmaps",
    ],
  },
  {
    name: "an index only: listed and watched, nothing written",
    register: (r) => r.on.index("pods", noop),
    expected: [...observing, ...following, "ns1 list core/pods", "ns1 watch core/pods"],
  },
  {
    name: "a daemon: patches, results, the finalizer",
    register: (r) => r.on.daemon("kopfexamples", noop),
    expected: [
      ...observing,
      ...following,
      ...handled("ns1"),
      "ns1 get kopf.dev/kopfexamples",
      "ns1 create core/events",
    ],
  },
  {
    name: "a timer: patches, results, the finalizer",
    register: (r) => r.on.timer("kopfexamples", { interval: 10 }, noop),
    expected: [
      ...observing,
      ...following,
      ...handled("ns1"),
      "ns1 get kopf.dev/kopfexamples",
      "ns1 create core/events",
    ],
  },
  {
    name: "posting disabled: no events",
    register: create,
    settings: { posting: { enabled: false } },
    expected: [...observing, ...following, ...handled("ns1")],
  },
  {
    name: "two namespaces: a grant in each",
    register: create,
    namespaces: ["ns2", "ns1"],
    expected: [
      ...observing,
      ...following,
      ...handled("ns1"),
      "ns1 create core/events",
      ...handled("ns2"),
      "ns2 create core/events",
    ],
  },
  {
    name: "namespace patterns: the served namespaces are not known in advance",
    register: create,
    namespaces: ["team-*"],
    expected: [...observing, ...following, ...handled("*"), "* create core/events"],
  },
  {
    name: "cluster-wide: no namespace following",
    register: create,
    clusterwide: true,
    expected: [...observing, ...handled("*"), "* create core/events"],
  },
  {
    name: "a cluster-scoped resource served by a namespaced operator: events in the operator's namespace",
    register: (r) => r.on.create("clusterwidgets", noop),
    expected: [
      ...observing,
      ...following,
      "* list kopf.dev/clusterwidgets",
      "* watch kopf.dev/clusterwidgets",
      "* patch kopf.dev/clusterwidgets",
      "* patch kopf.dev/clusterwidgets/status",
      "ops create core/events",
    ],
  },
  {
    name: "a typed resource's handlers (kopf.resource)",
    register: (r) => {
      r.declare(Widget);
      r.on.create(Widget, noop);
      r.on.daemon(Widget, noop);
    },
    expected: [
      ...observing,
      ...following,
      "ns1 list kopf.dev/widgets",
      "ns1 watch kopf.dev/widgets",
      "ns1 patch kopf.dev/widgets",
      "ns1 patch kopf.dev/widgets/status",
      "ns1 get kopf.dev/widgets",
      "ns1 create core/events",
    ],
  },
  {
    name: "core pods",
    register: (r) => r.on.create("pods", noop),
    expected: [
      ...observing,
      ...following,
      "ns1 list core/pods",
      "ns1 watch core/pods",
      "ns1 patch core/pods",
      "ns1 patch core/pods/status",
      "ns1 create core/events",
    ],
  },
  {
    name: "peering in the served namespace",
    register: create,
    settings: { peering: { standalone: false } },
    expected: [
      ...observing,
      ...following,
      ...handled("ns1"),
      "ns1 create core/events",
      "ns1 list kopf.dev/kopfpeerings",
      "ns1 watch kopf.dev/kopfpeerings",
      "ns1 patch kopf.dev/kopfpeerings#default",
    ],
  },
  {
    name: "peering cluster-wide, by name",
    register: create,
    clusterwide: true,
    settings: { peering: { standalone: false, clusterwide: true, name: "prod", mandatory: true } },
    expected: [
      ...observing,
      ...handled("*"),
      "* create core/events",
      "* list kopf.dev/clusterkopfpeerings",
      "* watch kopf.dev/clusterkopfpeerings",
      "* patch kopf.dev/clusterkopfpeerings#prod",
    ],
  },
  {
    name: "leader election: one Lease in the served namespace",
    register: create,
    settings: { scaling: { mode: "leader-election" } },
    expected: [
      ...observing,
      ...following,
      ...handled("ns1"),
      "ns1 create core/events",
      "ns1 get coordination.k8s.io/leases#kopf",
      "ns1 create coordination.k8s.io/leases",
      "ns1 patch coordination.k8s.io/leases#kopf",
    ],
  },
  {
    name: "sharding: the ring's Leases in the Lease namespace",
    register: create,
    clusterwide: true,
    settings: { scaling: { mode: "sharding", leaseName: "ring", leaseNamespace: "ops" } },
    expected: [
      ...observing,
      ...handled("*"),
      "* create core/events",
      "ops list coordination.k8s.io/leases",
      "ops create coordination.k8s.io/leases",
      "ops patch coordination.k8s.io/leases",
      "ops delete coordination.k8s.io/leases",
    ],
  },
  {
    name: "managed webhooks: the configurations, and no watch of the webhooks' resource",
    register: (r) => {
      r.on.validate("kex", noop);
      r.on.mutate("kex", noop);
    },
    settings: { admission: { managed: "auto.kopf.dev" } },
    expected: [
      ...observing,
      ...following,
      "* create admissionregistration.k8s.io/validatingwebhookconfigurations",
      "* patch admissionregistration.k8s.io/validatingwebhookconfigurations#auto.kopf.dev",
      "* create admissionregistration.k8s.io/mutatingwebhookconfigurations",
      "* patch admissionregistration.k8s.io/mutatingwebhookconfigurations#auto.kopf.dev",
    ],
  },
  {
    name: "webhooks served but not managed: no configurations",
    register: (r) => r.on.validate("kex", noop),
    expected: [...observing, ...following],
  },
  {
    name: "scanning disabled: neither CRDs nor namespaces observed",
    register: create,
    settings: { scanning: { disabled: true } },
    expected: [...handled("ns1"), "ns1 create core/events"],
  },
];

const rulesOf = (row: Pick<Row, "register" | "clusterwide" | "namespaces" | "settings">) => {
  const registry = kopf.Registry.make();
  row.register(registry);
  const { served, unresolved } = ServedResources.resolve(registry, known);
  expect(unresolved).toEqual([]);
  const settings = Result.getOrThrow(
    Settings.make({ ...row.settings, peering: { standalone: true, ...row.settings?.peering } }),
  );
  return Rbac.rules({
    served,
    clusterwide: row.clusterwide ?? false,
    namespaces: row.namespaces ?? ["ns1"],
    operatorNamespace: "ops",
    settings,
    admission: ServedResources.admissionRuns(registry),
  });
};

describe("Rbac.rules", () => {
  it.each(rows)("$name", (row) => {
    expect(rulesOf(row).map(line)).toEqual(row.expected);
  });

  it.each(rows)("no wildcards, no duplicates, a reason each, cluster-wide first: $name", (row) => {
    const rules = rulesOf(row);
    for (const rule of rules) {
      expect([
        rule.apiGroup,
        rule.resource,
        rule.verb,
        rule.resourceName ?? "",
        rule.namespace ?? "",
      ]).not.toContain("*");
      expect(rule.reason.length).toBeGreaterThan(10);
    }
    expect(new Set(rules.map(Rbac.keyOf)).size).toBe(rules.length);
    const firstNamespaced = rules.findIndex((rule) => rule.namespace !== null);
    if (firstNamespaced >= 0)
      expect(rules.slice(firstNamespaced).every((r) => r.namespace !== null)).toBe(true);
  });

  it("gives the same rules for the same input", () => {
    for (const row of rows) expect(rulesOf(row)).toEqual(rulesOf(row));
  });
});

describe("ServedResources.resolve", () => {
  it("reports the selectors that match no known resource", () => {
    const registry = kopf.Registry.make();
    registry.on.create("kopfexamples", noop);
    registry.on.create("unknowns.example.com", noop);
    const resolution = ServedResources.resolve(registry, known);
    expect(resolution.served.map((s) => Resource.format(s.resource))).toEqual(["kopfexamples.v1.kopf.dev"]);
    expect(resolution.unresolved).toHaveLength(1);
    expect(resolution.unresolved[0]).toContain("unknowns");
  });

  it("watches nothing for webhooks alone and reports the handler kinds per resource", () => {
    const registry = kopf.Registry.make();
    registry.on.validate("kopfexamples", noop);
    registry.on.index("pods", noop);
    registry.on.delete("configmaps", noop);
    const served = ServedResources.resolve(registry, known).served;
    expect(served.map((s) => [s.resource.plural, s.patched, s.results, s.finalizer, s.events])).toEqual([
      ["configmaps", true, true, true, true],
      ["pods", false, false, false, false],
    ]);
  });
});

describe("Rbac.servedNamespaces", () => {
  it("is the plain names, sorted, or null for patterns and the whole cluster", () => {
    expect(Rbac.servedNamespaces({ clusterwide: false, namespaces: ["b", "a"] })).toEqual(["a", "b"]);
    expect(Rbac.servedNamespaces({ clusterwide: false, namespaces: ["a", "team-*"] })).toBeNull();
    expect(Rbac.servedNamespaces({ clusterwide: true, namespaces: [] })).toBeNull();
  });
});
