/** Core CRUD through `handle`: system fields, generateName, validation, and the exact Status bodies of failures. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { cm, run, send } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";

describe("create", () => {
  it("sets uid, creationTimestamp, resourceVersion and the URL's namespace", async () => {
    const r = await run(send("POST", NS, cm("x")));
    expect(r.status).toBe(201);
    expect(r.body.metadata).toMatchObject({ name: "x", namespace: "default" });
    expect(r.body.metadata.uid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(r.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it("issues increasing resourceVersions across resources", async () => {
    const rvs = await run(
      Effect.gen(function* () {
        const a = yield* send("POST", NS, cm("a"));
        const b = yield* send("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "s" } });
        const c = yield* send("POST", NS, cm("c"));
        return [a, b, c].map((x) => Number(x.body.metadata.resourceVersion));
      }),
    );
    expect(rvs[0]).toBeLessThan(rvs[1] as number);
    expect(rvs[1]).toBeLessThan(rvs[2] as number);
  });

  it("generates names from generateName", async () => {
    const r = await run(send("POST", NS, { metadata: { generateName: "pre-" } }));
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^pre-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it.each([
    [
      "an existing name",
      cm("dup"),
      409,
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'configmaps "dup" already exists',
        reason: "AlreadyExists",
        details: { name: "dup", kind: "configmaps" },
        code: 409,
      },
    ],
    [
      "an upper-case name",
      cm("Bad"),
      422,
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          "ConfigMap \"Bad\" is invalid: metadata.name: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        reason: "Invalid",
        details: {
          name: "Bad",
          kind: "ConfigMap",
          causes: [
            {
              reason: "FieldValueInvalid",
              message:
                "Invalid value: \"Bad\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
              field: "metadata.name",
            },
          ],
        },
        code: 422,
      },
    ],
    [
      "no name at all",
      { metadata: {} },
      422,
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
        reason: "Invalid",
        details: {
          kind: "ConfigMap",
          causes: [
            {
              reason: "FieldValueRequired",
              message: "Required value: name or generateName is required",
              field: "metadata.name",
            },
          ],
        },
        code: 422,
      },
    ],
    ["a bad label value", cm("l", { labels: { app: "a b" } }), 422, undefined],
  ])("rejects %s", async (_name, body, code, status) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("dup"));
        return yield* send("POST", NS, body);
      }),
    );
    expect(r.status).toBe(code);
    if (status !== undefined) expect(r.body).toEqual(status);
    else expect(r.body.reason).toBe("Invalid");
  });

  it("answers a storage error (500, no reason) when the body carries a resourceVersion", async () => {
    const r = await run(send("POST", NS, cm("x", { resourceVersion: "5" })));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "resourceVersion should not be set on objects to be created",
      code: 500,
    });
  });

  it("answers 404 for a missing namespace", async () => {
    const r = await run(send("POST", "/api/v1/namespaces/nope/configmaps", cm("x")));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'namespaces "nope" not found',
      reason: "NotFound",
      details: { name: "nope", kind: "namespaces" },
      code: 404,
    });
  });

  it("answers 400 when the body's namespace differs from the URL's", async () => {
    const r = await run(send("POST", NS, cm("x", { namespace: "kube-system" })));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  });

  it("serves the default namespaces", async () => {
    const r = await run(send("GET", "/api/v1/namespaces"));
    expect(r.body.items.map((n: any) => n.metadata.name)).toEqual([
      "default",
      "kube-node-lease",
      "kube-public",
      "kube-system",
    ]);
    expect(r.body.items[0].status).toEqual({ phase: "Active" });
    expect(r.body.items[0].metadata.labels).toEqual({ "kubernetes.io/metadata.name": "default" });
  });
});

describe("update", () => {
  it("replaces the object and bumps resourceVersion; a stale one is a 409 Conflict", async () => {
    const r = await run(
      Effect.gen(function* () {
        const created = yield* send("POST", NS, cm("x"));
        const updated = yield* send("PUT", `${NS}/x`, { ...created.body, data: { a: "2" } });
        const stale = yield* send("PUT", `${NS}/x`, { ...created.body, data: { a: "3" } });
        return { created, updated, stale };
      }),
    );
    expect(r.updated.status).toBe(200);
    expect(r.updated.body.data).toEqual({ a: "2" });
    expect(Number(r.updated.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(r.created.body.metadata.resourceVersion),
    );
    expect(r.updated.body.metadata.uid).toBe(r.created.body.metadata.uid);
    expect(r.stale.status).toBe(409);
    expect(r.stale.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
      reason: "Conflict",
      details: { name: "x", kind: "configmaps" },
      code: 409,
    });
  });

  it("does not bump resourceVersion when nothing changes", async () => {
    const r = await run(
      Effect.gen(function* () {
        const created = yield* send("POST", NS, cm("x"));
        const same = yield* send("PUT", `${NS}/x`, created.body);
        return { created, same };
      }),
    );
    expect(r.same.status).toBe(200);
    expect(r.same.body.metadata.resourceVersion).toBe(r.created.body.metadata.resourceVersion);
  });

  it.each([
    ["a missing object", "y", { metadata: { name: "y" } }, 404, 'configmaps "y" not found'],
    [
      "a name differing from the URL",
      "x",
      { metadata: { name: "z" } },
      400,
      "the name of the object (z) does not match the name on the URL (x)",
    ],
  ])("rejects %s", async (_n, name, body, code, message) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        return yield* send("PUT", `${NS}/${name}`, body);
      }),
    );
    expect(r.status).toBe(code);
    expect(r.body.message).toBe(message);
  });
});

describe("routing", () => {
  it.each([
    ["GET", "/api/v1/namespaces/default/nothings", 404, "the server could not find the requested resource"],
    ["PUT", NS, 405, "the server does not allow this method on the requested resource"],
    ["POST", `${NS}/x`, 405, "the server does not allow this method on the requested resource"],
    ["OPTIONS", `${NS}/x`, 405, "the server does not allow this method on the requested resource"],
    ["DELETE", "/api/v1/namespaces", 405, "the server does not allow this method on the requested resource"],
  ])("%s %s answers %i", async (method, path, code, message) => {
    const r = await run(send(method, path));
    expect(r.status).toBe(code);
    expect(r.body.message).toBe(message);
  });

  it("answers a plain 404 page for unknown paths and groups", async () => {
    const r = await run(Effect.all([send("GET", "/nothing"), send("GET", "/apis/nope.io/v1/things")]));
    for (const x of r) {
      expect(x.status).toBe(404);
      expect(x.text).toBe("404 page not found\n");
    }
  });
});
