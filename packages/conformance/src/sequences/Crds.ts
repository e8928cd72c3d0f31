/**
 * The CRD lifecycle and custom resources: creation until Established, discovery of the new
 * group, schema validation and pruning, defaulting, the status subresource and generation,
 * patch types custom resources do not support, deletion held by a finalizer (generation, the
 * DELETED event), when managedFields start being tracked, and deletion of the CRD.
 */
import type { Select, Sequence } from "../Interaction.ts";
import {
  APPLY,
  collect,
  del,
  established,
  get,
  gone,
  JSON_PATCH,
  MERGE,
  namespace,
  patch,
  poll,
  post,
  put,
  rvOf,
  STRATEGIC,
  watch,
} from "./internal/steps.ts";

/** A CRD with a status subresource, a typed schema, a default and an open `extra` field. */
export const crd = (group: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: {
      plural: "widgets",
      singular: "widget",
      kind: "Widget",
      listKind: "WidgetList",
      shortNames: ["wd"],
    },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer", minimum: 1, maximum: 10 },
                  color: { type: "string", enum: ["red", "blue"], default: "red" },
                  extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
                required: ["size"],
              },
              status: {
                type: "object",
                properties: { phase: { type: "string" }, count: { type: "integer" } },
              },
            },
          },
        },
      },
    ],
  },
});

const widget = (name: string, spec: Record<string, unknown>, group: string) => ({
  apiVersion: `${group}/v1`,
  kind: "Widget",
  metadata: { name },
  spec,
});

/** The CRD's own body narrowed to what is deterministic and Kopf-relevant. */
const crdSummary: Select = (body) => {
  const c = body as {
    metadata?: { name?: string };
    spec?: unknown;
    status?: { acceptedNames?: unknown; conditions?: ReadonlyArray<{ type: string; status: string }> };
  };
  if (c.spec === undefined) return body;
  return {
    name: c.metadata?.name,
    spec: c.spec,
    acceptedNames: c.status?.acceptedNames,
    conditions: (c.status?.conditions ?? [])
      .map((x) => ({ type: x.type, status: x.status }))
      .sort((a, b) => a.type.localeCompare(b.type)),
  };
};

/** The CRD sequence. */
export const sequence = (run: string): Sequence => {
  const group = `c${run}.example.com`;
  const ns = `c-crd-${run}`;
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;
  const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`;
  const w1 = `${widgets}/w1`;
  const wu = `${widgets}/wu`;
  return {
    name: "crds",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("create-crd", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(group), {
        select: crdSummary,
      }),
      poll("established", crdPath, established),
      get("get-crd", crdPath, { select: crdSummary }),
      post("create-crd-again", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(group), {
        select: crdSummary,
      }),
      post("create-crd-bad-name", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
        ...crd(group),
        metadata: { name: "wrong.name" },
      }),
      get("discover-group", `/apis/${group}/v1`),
      post(
        "create",
        widgets,
        widget("w1", { size: 3, extra: { anything: [1, 2] }, unknown: "pruned" }, group),
      ),
      get("get", w1),
      post("create-missing-required", widgets, widget("w2", { color: "blue" }, group)),
      post("create-wrong-type", widgets, widget("w3", { size: "three" }, group)),
      post("create-out-of-range", widgets, widget("w4", { size: 99 }, group)),
      post("create-bad-enum", widgets, widget("w5", { size: 1, color: "green" }, group)),
      post("create-with-status", widgets, {
        ...widget("w6", { size: 2 }, group),
        status: { phase: "ignored" },
      }),
      post("create-wrong-kind", widgets, { ...widget("w7", { size: 2 }, group), kind: "Gadget" }),
      post(
        "create-strict-unknown",
        `${widgets}?fieldValidation=Strict`,
        widget("w8", { size: 2, bogus: 1 }, group),
      ),
      get("list", widgets),
      get("list-all-namespaces", `/apis/${group}/v1/widgets`, {
        select: (b) => ({ count: (b as { items?: unknown[] }).items?.length }),
      }),
      patch("merge-spec", w1, MERGE, { spec: { size: 4 } }),
      patch("merge-status-ignored", w1, MERGE, { status: { phase: "Ignored" } }),
      patch("status-merge", `${w1}/status`, MERGE, { status: { phase: "Running", count: 1 } }),
      patch("status-spec-ignored", `${w1}/status`, MERGE, { spec: { size: 9 }, status: { count: 2 } }),
      get("status-get", `${w1}/status`),
      put("status-replace", `${w1}/status`, undefined, {
        bodyFrom: (e) => ({
          ...widget("w1", { size: 4 }, group),
          metadata: { name: "w1", resourceVersion: rvOf(e, "status-get") },
          status: { phase: "Done" },
        }),
      }),
      patch("status-invalid", `${w1}/status`, MERGE, { status: { count: "many" } }),
      patch("status-managed-fields-ignored", `${w1}/status`, MERGE, {
        metadata: { managedFields: [] },
        status: { count: 3 },
      }),
      patch("json-patch-spec", w1, JSON_PATCH, [{ op: "replace", path: "/spec/size", value: 5 }]),
      patch("strategic-unsupported", w1, STRATEGIC, { spec: { size: 6 } }),
      patch("merge-invalid", w1, MERGE, { spec: { size: 0 } }),
      get("get-final", w1),
      post("create-finalized", widgets, {
        ...widget("wf", { size: 1 }, group),
        metadata: { name: "wf", finalizers: ["example.com/keep"] },
      }),
      watch(
        "watch-finalized",
        "wf",
        (e) => `${widgets}?fieldSelector=metadata.name%3Dwf&resourceVersion=${rvOf(e, "create-finalized")}`,
      ),
      del("delete-finalized", `${widgets}/wf`),
      del("delete-finalized-again", `${widgets}/wf`),
      patch("remove-finalizer", `${widgets}/wf`, JSON_PATCH, [
        { op: "remove", path: "/metadata/finalizers" },
      ]),
      collect("events-finalized", "wf", 2),
      post("create-untracked", widgets, {
        apiVersion: `${group}/v1`,
        kind: "Widget",
        metadata: { name: "wu" },
      }),
      patch("untracked-status", `${wu}/status`, MERGE, { status: { phase: "Running" } }),
      patch("untracked-spec", wu, MERGE, { spec: { size: 2 } }),
      patch("untracked-labels-with-manager", `${wu}?fieldManager=kopf`, MERGE, {
        metadata: { labels: { a: "b" } },
      }),
      patch("untracked-apply-conflict", `${wu}?fieldManager=x`, APPLY, widget("wu", { size: 3 }, group)),
      patch("untracked-apply", `${wu}?fieldManager=x`, APPLY, widget("wu", { size: 2 }, group)),
      patch("tracked-after-apply", `${wu}?fieldManager=kopf`, MERGE, { metadata: { labels: { c: "d" } } }),
      del("delete", w1),
      get("get-deleted", w1),
      del("delete-crd", crdPath, undefined, { select: crdSummary }),
      poll("crd-gone", crdPath, gone, 60_000),
      get("resources-gone", widgets),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};
