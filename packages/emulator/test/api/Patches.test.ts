/** Every patch type through `handle`: merge, JSON (incl. failed `test`), strategic (415 for custom resources) and server-side apply with conflicts. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { CRD, cm, run, send } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";
const MERGE = { "content-type": "application/merge-patch+json" };
const JSONP = { "content-type": "application/json-patch+json" };
const SMP = { "content-type": "application/strategic-merge-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };

const withCm = <A, E>(then: Effect.Effect<A, E, any>) =>
  run(
    Effect.gen(function* () {
      yield* send("POST", NS, cm("x", { labels: { a: "1", b: "2" } }));
      return yield* then;
    }) as Effect.Effect<A, E, never>,
  );

describe("merge patch", () => {
  it.each([
    [{ data: { a: "2" } }, { a: "2" }, { a: "1", b: "2" }],
    [{ data: { z: "9" } }, { a: "1", z: "9" }, { a: "1", b: "2" }],
    [{ metadata: { labels: { a: null } } }, { a: "1" }, { b: "2" }],
    [{ data: null }, undefined, { a: "1", b: "2" }],
  ])("%j", async (patch, data, labels) => {
    const r = await withCm(send("PATCH", `${NS}/x`, patch, MERGE));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(data);
    expect(r.body.metadata.labels).toEqual(labels);
  });

  it("answers 404 for a missing object", async () => {
    const r = await withCm(send("PATCH", `${NS}/nope`, { data: {} }, MERGE));
    expect(r.status).toBe(404);
  });

  it("treats a resourceVersion in the patch as a precondition", async () => {
    const r = await withCm(
      send("PATCH", `${NS}/x`, { metadata: { resourceVersion: "1" }, data: { a: "2" } }, MERGE),
    );
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe("Conflict");
  });
});

describe("json patch", () => {
  it.each([
    [[{ op: "replace", path: "/data/a", value: "5" }], 200, { a: "5" }],
    [[{ op: "add", path: "/data/b", value: "6" }], 200, { a: "1", b: "6" }],
    // The last key gone, `data` is gone too (omitempty), as kube-apiserver answers.
    [[{ op: "remove", path: "/data/a" }], 200, undefined],
    [
      [
        { op: "test", path: "/data/a", value: "1" },
        { op: "replace", path: "/data/a", value: "7" },
      ],
      200,
      { a: "7" },
    ],
    [[{ op: "copy", from: "/data/a", path: "/data/c" }], 200, { a: "1", c: "1" }],
    [[{ op: "move", from: "/data/a", path: "/data/d" }], 200, { d: "1" }],
    [[{ op: "replace", path: "/data/new", value: "9" }], 200, { a: "1", new: "9" }],
    [[{ op: "test", path: "/data/none", value: null }], 200, { a: "1" }],
  ])("%j", async (ops, code, data) => {
    const r = await withCm(send("PATCH", `${NS}/x`, ops, JSONP));
    expect(r.status).toBe(code);
    expect(r.body.data).toEqual(data);
  });

  it.each([
    ["a failed test", [{ op: "test", path: "/data/a", value: "2" }]],
    ["a missing key to remove", [{ op: "remove", path: "/data/zz" }]],
    ["a missing parent", [{ op: "add", path: "/nope/zz", value: "2" }]],
  ])("answers 422 like a real server for %s", async (_n, ops) => {
    const r = await withCm(send("PATCH", `${NS}/x`, ops, JSONP));
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server rejected our request due to an error in our request",
      reason: "Invalid",
      details: {},
      code: 422,
    });
  });

  it("answers 400 for a malformed patch document", async () => {
    const r = await withCm(send("PATCH", `${NS}/x`, { op: "add" }, JSONP));
    expect(r.status).toBe(400);
    expect(r.body.reason).toBe("BadRequest");
  });
});

describe("strategic merge patch", () => {
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", finalizers: ["a/b"] },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            { name: "app", image: "app:1", env: [{ name: "A", value: "1" }], ports: [{ containerPort: 80 }] },
            { name: "side", image: "side:1" },
          ],
        },
      },
    },
  };
  const DEP = "/apis/apps/v1/namespaces/default/deployments";
  const patchDeployment = (patch: unknown) =>
    run(
      Effect.gen(function* () {
        yield* send("POST", DEP, deployment);
        return yield* send("PATCH", `${DEP}/web`, patch, SMP);
      }),
    );

  it("merges containers by name and env by name", async () => {
    const r = await patchDeployment({
      spec: {
        template: {
          spec: { containers: [{ name: "app", image: "app:2", env: [{ name: "B", value: "2" }] }] },
        },
      },
    });
    expect(r.status).toBe(200);
    const containers = r.body.spec.template.spec.containers;
    expect(containers.map((c: any) => [c.name, c.image])).toEqual([
      ["app", "app:2"],
      ["side", "side:1"],
    ]);
    expect(containers[0].env).toEqual([
      { name: "B", value: "2" },
      { name: "A", value: "1" },
    ]);
    expect(r.body.metadata.generation).toBe(2);
  });

  it("deletes list items with $patch: delete and unions finalizers", async () => {
    const r = await patchDeployment({
      metadata: { finalizers: ["c/d"] },
      spec: { template: { spec: { containers: [{ name: "side", $patch: "delete" }] } } },
    });
    expect(r.body.spec.template.spec.containers.map((c: any) => c.name)).toEqual(["app"]);
    expect(r.body.metadata.finalizers).toEqual(["c/d", "a/b"]);
  });

  it("is rejected with 415 for custom resources", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        yield* send("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples", {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name: "k" },
        });
        return yield* send("PATCH", "/apis/kopf.dev/v1/namespaces/default/kopfexamples/k", { spec: {} }, SMP);
      }),
    );
    expect(r.status).toBe(415);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      reason: "UnsupportedMediaType",

      code: 415,
    });
  });
});

describe("server-side apply", () => {
  const applied = (data: Record<string, string>, name = "s") =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${Object.entries(data)
      .map(([k, v]) => `  ${k}: "${v}"`)
      .join("\n")}\n`;

  it("creates the object, records the manager, and needs a fieldManager", async () => {
    const r = await run(
      Effect.gen(function* () {
        const missing = yield* send("PATCH", `${NS}/s`, applied({ a: "1" }), APPLY);
        const created = yield* send("PATCH", `${NS}/s?fieldManager=alice`, applied({ a: "1" }), APPLY);
        return { missing, created };
      }),
    );
    expect(r.missing.status).toBe(422);
    expect(r.missing.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(r.created.status).toBe(201);
    expect(r.created.body.metadata.managedFields).toEqual([
      {
        manager: "alice",
        operation: "Apply",
        apiVersion: "v1",
        time: expect.any(String),
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} } },
      },
    ]);
  });

  it("conflicts with another manager's field unless forced, and removes fields it no longer applies", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("PATCH", `${NS}/s?fieldManager=alice`, applied({ a: "1", b: "1" }), APPLY);
        const conflict = yield* send("PATCH", `${NS}/s?fieldManager=bob`, applied({ a: "2" }), APPLY);
        const shared = yield* send("PATCH", `${NS}/s?fieldManager=bob`, applied({ a: "1", c: "3" }), APPLY);
        const forced = yield* send(
          "PATCH",
          `${NS}/s?fieldManager=bob&force=true`,
          applied({ a: "2", c: "3" }),
          APPLY,
        );
        const dropped = yield* send("PATCH", `${NS}/s?fieldManager=alice`, applied({ a: "2" }), APPLY);
        return { conflict, shared, forced, dropped };
      }),
    );
    expect(r.conflict.status).toBe(409);
    expect(r.conflict.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
      reason: "Conflict",
      details: {
        causes: [{ reason: "FieldManagerConflict", message: 'conflict with "alice"', field: ".data.a" }],
      },
      code: 409,
    });
    expect(r.shared.status).toBe(200);
    expect(r.shared.body.data).toEqual({ a: "1", b: "1", c: "3" });
    expect(r.forced.body.data).toEqual({ a: "2", b: "1", c: "3" });
    expect(r.dropped.status).toBe(200);
    expect(r.dropped.body.data).toEqual({ a: "2", c: "3" });
  });

  it("conflicts with an Update manager naming its apiVersion", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", `${NS}?fieldManager=kubectl-edit`, cm("s"));
        return yield* send("PATCH", `${NS}/s?fieldManager=alice`, applied({ a: "9" }), APPLY);
      }),
    );
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a',
    );
  });
});
