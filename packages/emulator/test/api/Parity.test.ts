/**
 * Answers aligned with kube-apiserver 1.34 by the differential conformance run (each expectation is
 * what the real server answered): namespace finalizers, negative limits, 405 details, managedFields
 * of generateName and owner references, the CRD cleanup finalizer only on delete, and the garbage
 * collector's removal of owner references from managedFields.
 */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { CRD, cm, run, send } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";
const fieldsOf = (body: any) => body.metadata.managedFields?.[0]?.fieldsV1;

describe("kube-apiserver parity", () => {
  it.each([
    [[], ["kubernetes"]],
    [["example.com/custom"], ["example.com/custom", "kubernetes"]],
    [
      ["kubernetes", "example.com/custom"],
      ["kubernetes", "example.com/custom"],
    ],
  ])("a namespace created with finalizers %j has %j, owned as an atomic list", async (given, stored) => {
    const r = await run(
      send("POST", "/api/v1/namespaces", { metadata: { name: "fin" }, spec: { finalizers: given } }),
    );
    expect(r.status).toBe(201);
    expect(r.body.spec.finalizers).toEqual(stored);
    if (given.length > 0) expect(fieldsOf(r.body)["f:spec"]).toEqual({ "f:finalizers": {} });
  });

  it("reads a negative limit as no limit", async () => {
    const r = await run(
      Effect.gen(function* () {
        for (const name of ["a", "b", "c"]) yield* send("POST", NS, cm(name));
        return yield* send("GET", `${NS}?limit=-1`);
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(3);
    expect(r.body.metadata.continue).toBeUndefined();
  });

  it("answers 405 with empty details", async () => {
    const r = await run(send("PUT", NS, cm("a")));
    expect(r.status).toBe(405);
    expect(r.body.details).toEqual({});
  });

  it("records generateName and bare owner-reference keys in managedFields", async () => {
    const r = await run(
      Effect.gen(function* () {
        const owner = yield* send("POST", NS, cm("owner"));
        return yield* send("POST", NS, {
          metadata: {
            generateName: "child-",
            ownerReferences: [
              { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.body.metadata.uid },
            ],
          },
        });
      }),
    );
    expect(r.status).toBe(201);
    const uid = r.body.metadata.ownerReferences[0].uid;
    expect(fieldsOf(r.body)).toEqual({
      "f:metadata": {
        "f:generateName": {},
        "f:ownerReferences": { ".": {}, [`k:{"uid":"${uid}"}`]: {} },
      },
    });
  });

  it("drops a manager's entry when the garbage collector removes the only owner reference it owned", async () => {
    const r = await run(
      Effect.gen(function* () {
        const owner = yield* send("POST", NS, cm("owner"));
        yield* send("POST", NS, {
          metadata: {
            name: "child",
            ownerReferences: [
              { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.body.metadata.uid },
            ],
          },
        });
        yield* send("DELETE", `${NS}/owner?propagationPolicy=Orphan`);
        yield* Effect.sleep("20 millis");
        return yield* send("GET", `${NS}/child`);
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.metadata.ownerReferences).toBeUndefined();
    expect(r.body.metadata.managedFields).toBeUndefined();
  });

  it("adds the CRD cleanup finalizer on the first delete, not at creation", async () => {
    const r = await run(
      Effect.gen(function* () {
        const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        const created = yield* send("POST", CRDS, CRD);
        yield* send("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples", {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name: "held", finalizers: ["kopf.dev/hold"] },
        });
        const deleted = yield* send("DELETE", `${CRDS}/kopfexamples.kopf.dev`);
        return { created, deleted };
      }),
    );
    expect(r.created.body.metadata.finalizers).toBeUndefined();
    expect(r.deleted.body.metadata.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    expect(r.deleted.body.metadata.deletionTimestamp).toBeDefined();
  });
});

describe("write options", () => {
  it.each([
    [
      "POST",
      NS,
      "dryRun=Some",
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
    ],
    [
      "POST",
      NS,
      "fieldValidation=Loud",
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
    ],
    [
      "PATCH",
      `${NS}/a`,
      "dryRun=Some",
      'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
    ],
    [
      "DELETE",
      `${NS}/a`,
      "dryRun=Maybe",
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"',
    ],
  ])("%s %s?%s is 422 Invalid", async (method, path, query, message) => {
    const r = await run(send(method, `${path}?${query}`, method === "DELETE" ? undefined : cm("a")));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(message);
    expect(r.body.details).toMatchObject({
      group: "meta.k8s.io",
      causes: [{ reason: "FieldValueNotSupported" }],
    });
  });

  it("accepts dryRun=All and every fieldValidation directive", async () => {
    for (const query of [
      "dryRun=All",
      "fieldValidation=Strict",
      "fieldValidation=",
      "fieldValidation=warn",
    ]) {
      const r = await run(send("POST", `${NS}?${query}`, cm("a")));
      expect(r.status).toBe(201);
    }
  });
});

describe("custom resources of another kind", () => {
  it("fail validation with 422, naming the kind they must be", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        return yield* send("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples", {
          apiVersion: "kopf.dev/v1",
          kind: "Gadget",
          metadata: { name: "w7" },
        });
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Gadget.kopf.dev "w7" is invalid: kind: Invalid value: "Gadget": must be KopfExample',
    );
    expect(r.body.details).toEqual({
      name: "w7",
      group: "kopf.dev",
      kind: "Gadget",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: "Gadget": must be KopfExample',
          field: "kind",
        },
      ],
    });
  });
});

describe("core Events", () => {
  it("own the fields of source, not source itself (a non-pointer struct)", async () => {
    const r = await run(
      send("POST", "/api/v1/namespaces/default/events", {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "ev" },
        involvedObject: { kind: "ConfigMap", namespace: "default", name: "x" },
        reason: "Test",
        message: "hello",
        source: { component: "kopf" },
      }),
    );
    expect(r.status).toBe(201);
    expect(fieldsOf(r.body)["f:source"]).toEqual({ "f:component": {} });
  });
});

describe("core Event validation", () => {
  it("refuses an involved object in another namespace", async () => {
    const r = await run(
      send("POST", "/api/v1/namespaces/default/events", {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "ev2" },
        involvedObject: { kind: "ConfigMap", namespace: "elsewhere", name: "x" },
        reason: "Test",
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Event "ev2" is invalid: involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace',
    );
  });
});
