/** CustomResourceDefinitions: serving right away, conditions, pruning, defaulting, validation errors, status and scale subresources, removal. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { run, send } from "./Harness.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const KEX = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";
const MERGE = { "content-type": "application/merge-patch+json" };

const schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 1, maximum: 10 },
        mode: { type: "string", enum: ["fast", "slow"], default: "fast" },
        name: { type: "string", pattern: "^[a-z]+$", maxLength: 5 },
        replicas: { type: "integer" },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        items: { type: "array", maxItems: 2, items: { type: "string" } },
      },
    },
    status: { type: "object", properties: { replicas: { type: "integer" }, phase: { type: "string" } } },
  },
};

export const crd = (scope = "Namespaced") => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "kopfexamples.kopf.dev" },
  spec: {
    group: "kopf.dev",
    scope,
    names: { plural: "kopfexamples", kind: "KopfExample", shortNames: ["kex"], categories: ["kopf"] },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: schema },
        subresources: {
          status: {},
          scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
        },
      },
    ],
  },
});

const kex = (name: string, spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name },
  spec,
  ...extra,
});

const withCrd = <A, E>(then: Effect.Effect<A, E, any>) =>
  run(
    Effect.gen(function* () {
      const created = yield* send("POST", CRDS, crd());
      if (created.status !== 201) throw new Error(created.text);
      return yield* then;
    }) as Effect.Effect<A, E, never>,
  );

describe("CRD lifecycle", () => {
  it("is established and served immediately, with defaults and no cleanup finalizer until deleted (as kube-apiserver 1.34)", async () => {
    const r = await withCrd(
      Effect.gen(function* () {
        const stored = yield* send("GET", `${CRDS}/kopfexamples.kopf.dev`);
        const discovery = yield* send("GET", "/apis/kopf.dev/v1");
        const group = yield* send("GET", "/apis/kopf.dev");
        return { stored, discovery, group };
      }),
    );
    const conditions = r.stored.body.status.conditions.map((c: any) => [c.type, c.status, c.reason]);
    expect(conditions).toEqual([
      ["NamesAccepted", "True", "NoConflicts"],
      ["Established", "True", "InitialNamesAccepted"],
    ]);
    expect(r.stored.body.spec.names).toMatchObject({ singular: "kopfexample", listKind: "KopfExampleList" });
    expect(r.stored.body.status.acceptedNames.kind).toBe("KopfExample");
    expect(r.stored.body.status.storedVersions).toEqual(["v1"]);
    expect(r.stored.body.metadata.finalizers).toBeUndefined();
    expect(r.discovery.body.resources).toEqual([
      {
        name: "kopfexamples",
        singularName: "kopfexample",
        namespaced: true,
        kind: "KopfExample",
        verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        shortNames: ["kex"],
        categories: ["kopf"],
      },
      {
        name: "kopfexamples/scale",
        singularName: "",
        namespaced: true,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      },
      {
        name: "kopfexamples/status",
        singularName: "",
        namespaced: true,
        kind: "KopfExample",
        verbs: ["get", "patch", "update"],
      },
    ]);
    expect(r.group.body.preferredVersion).toEqual({ groupVersion: "kopf.dev/v1", version: "v1" });
  });

  it("rejects an invalid CRD with field errors", async () => {
    const bad = crd();
    const r = await run(send("POST", CRDS, { ...bad, metadata: { name: "wrong.kopf.dev" } }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "wrong.kopf.dev" is invalid: metadata.name: Invalid value: "wrong.kopf.dev": must be spec.names.plural+"."+spec.group',
    );
  });

  it("removes objects and discovery when the CRD is deleted", async () => {
    const r = await withCrd(
      Effect.gen(function* () {
        yield* send("POST", KEX, kex("a", { size: 1 }));
        yield* send("DELETE", `${CRDS}/kopfexamples.kopf.dev`);
        yield* Effect.sleep("20 millis");
        const crdGone = yield* send("GET", `${CRDS}/kopfexamples.kopf.dev`);
        const served = yield* send("GET", KEX);
        const discovery = yield* send("GET", "/apis/kopf.dev/v1");
        return { crdGone, served, discovery };
      }),
    );
    expect(r.crdGone.status).toBe(404);
    expect(r.served.status).toBe(404);
    expect(r.discovery.status).toBe(404);
  });
});

describe("custom resources", () => {
  it("prunes unknown fields, keeps preserved ones, and applies defaults", async () => {
    const r = await withCrd(
      send("POST", KEX, kex("a", { size: 2, unknown: 1, free: { any: { deep: true } } }, { extra: "x" })),
    );
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ size: 2, mode: "fast", free: { any: { deep: true } } });
    expect(r.body.extra).toBeUndefined();
    expect(r.body.metadata.generation).toBe(1);
  });

  it.each([
    [
      { size: "big" },
      'KopfExample.kopf.dev "a" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    ],
    [{}, 'KopfExample.kopf.dev "a" is invalid: spec.size: Required value'],
    [
      { size: 11 },
      'KopfExample.kopf.dev "a" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
    ],
    [
      { size: 1, mode: "odd" },
      'KopfExample.kopf.dev "a" is invalid: spec.mode: Unsupported value: "odd": supported values: "fast", "slow"',
    ],
    [
      { size: 1, name: "AB" },
      `KopfExample.kopf.dev "a" is invalid: spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'`,
    ],
    [
      { size: 1, items: ["a", "b", "c"] },
      'KopfExample.kopf.dev "a" is invalid: spec.items: Too many: 3: must have at most 2 items',
    ],
  ])("rejects %j with 422", async (spec, message) => {
    const r = await withCrd(send("POST", KEX, kex("a", spec)));
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe("Invalid");
    expect(r.body.message).toBe(message);
    expect(r.body.details.group).toBe("kopf.dev");
    expect(r.body.details.kind).toBe("KopfExample");
  });

  it("requires a resourceVersion on PUT", async () => {
    const r = await withCrd(
      Effect.gen(function* () {
        yield* send("POST", KEX, kex("a", { size: 1 }));
        return yield* send("PUT", `${KEX}/a`, kex("a", { size: 2 }));
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'kopfexamples.kopf.dev "a" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
  });

  it("ignores status on main writes and changes only status through /status; generation follows spec", async () => {
    const r = await withCrd(
      Effect.gen(function* () {
        const created = yield* send("POST", KEX, kex("a", { size: 1 }, { status: { phase: "x" } }));
        const main = yield* send("PATCH", `${KEX}/a`, { spec: { size: 2 }, status: { phase: "y" } }, MERGE);
        const status = yield* send(
          "PATCH",
          `${KEX}/a/status`,
          { spec: { size: 3 }, status: { phase: "z" } },
          MERGE,
        );
        const labels = yield* send("PATCH", `${KEX}/a`, { metadata: { labels: { l: "1" } } }, MERGE);
        return { created, main, status, labels };
      }),
    );
    expect(r.created.body.status).toBeUndefined();
    expect(r.main.body.status).toBeUndefined();
    expect(r.main.body.spec.size).toBe(2);
    expect(r.main.body.metadata.generation).toBe(2);
    expect(r.status.body.spec.size).toBe(2);
    expect(r.status.body.status).toEqual({ phase: "z" });
    expect(r.status.body.metadata.generation).toBe(2);
    expect(r.labels.body.metadata.generation).toBe(2);
  });

  it("serves the scale subresource", async () => {
    const r = await withCrd(
      Effect.gen(function* () {
        yield* send("POST", KEX, kex("a", { size: 1, replicas: 2 }));
        const scale = yield* send("GET", `${KEX}/a/scale`);
        const patched = yield* send("PATCH", `${KEX}/a/scale`, { spec: { replicas: 5 } }, MERGE);
        const obj = yield* send("GET", `${KEX}/a`);
        return { scale, patched, obj };
      }),
    );
    expect(r.scale.body).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 2 },
      status: { replicas: 0 },
    });
    expect(r.patched.body.spec.replicas).toBe(5);
    expect(r.obj.body.spec.replicas).toBe(5);
  });

  it("rejects unknown field selectors as a real server does", async () => {
    const r = await withCrd(send("GET", `${KEX}?fieldSelector=spec.size%3D1`));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("field label not supported: spec.size");
  });
});

describe("field validation", () => {
  it.each([
    ["", 201, ['299 - "unknown field \\"spec.unknown\\""']],
    ["?fieldValidation=Ignore", 201, undefined],
    ["?fieldValidation=Strict", 400, undefined],
  ])("%s answers %i", async (query, code, warning) => {
    const r = await withCrd(send("POST", `${KEX}${query}`, kex("a", { size: 1, unknown: true })));
    expect(r.status).toBe(code);
    expect(r.headers.warning === undefined ? undefined : [r.headers.warning]).toEqual(warning);
    if (code === 400)
      expect(r.body.message).toBe(
        'KopfExample in version "v1" cannot be handled as a KopfExample: strict decoding error: unknown field "spec.unknown"',
      );
  });
});
