/**
 * What a deletion writes, as kube-apiserver v1.34.4 does: the generation bump of the first DELETE
 * that marks an object, and the answer and DELETED event when a write removes the last finalizer.
 */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { CRD, cm, run, send, watch } from "./Harness.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const KEX = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const MERGE = { "content-type": "application/merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };
const KEEP = { finalizers: ["example.com/keep"] };

const kex = (name: string) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, ...KEEP },
  spec: { a: 1 },
});

const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, ...KEEP },
  spec: {
    selector: { matchLabels: { a: "b" } },
    template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
  },
});

describe("the generation of a DELETE that marks an object", () => {
  it.each([
    ["a custom resource", KEX, kex("g"), 1, 2],
    ["a Deployment", DEPLOYMENTS, deployment("g"), 1, 2],
    ["a ConfigMap (no generation)", CMS, cm("g", KEEP), undefined, undefined],
  ])("%s: bumped once, not by a repeated DELETE", async (_what, path, body, before, after) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        const created = yield* send("POST", path, body);
        const from = created.body.metadata.resourceVersion;
        const marked = yield* send("DELETE", `${path}/g`);
        const again = yield* send("DELETE", `${path}/g`);
        const events = yield* watch(`${path}?watch=1&resourceVersion=${from}`, 1);
        return { created, marked, again, events: events.events };
      }),
    );
    expect(r.created.body.metadata.generation).toBe(before);
    expect(r.marked.body.metadata.deletionTimestamp).toBeDefined();
    expect(r.marked.body.metadata.generation).toBe(after);
    expect(r.again.body.metadata.generation).toBe(after);
    expect(r.again.body.metadata.resourceVersion).toBe(r.marked.body.metadata.resourceVersion);
    expect(r.events.map((e) => [e.type, e.object.metadata.generation])).toEqual([["MODIFIED", after]]);
  });
});

it("a CRD's generation is left as it is (its registry marks it by an update of its own)", async () => {
  const r = await run(
    Effect.gen(function* () {
      yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
      return yield* send(
        "DELETE",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kopfexamples.kopf.dev",
      );
    }),
  );
  expect(r.body.metadata.deletionTimestamp).toBeDefined();
  expect(r.body.metadata.generation).toBe(1);
});

it("a pod is marked (generation bumped, grace period 0), then deleted; the answer is the deleted pod", async () => {
  const PODS = "/api/v1/namespaces/default/pods";
  const r = await run(
    Effect.gen(function* () {
      const created = yield* send("POST", PODS, {
        metadata: { name: "p" },
        spec: { containers: [{ name: "c", image: "x" }] },
      });
      const deleted = yield* send("DELETE", `${PODS}/p`);
      const events = yield* watch(
        `${PODS}?watch=1&resourceVersion=${created.body.metadata.resourceVersion}`,
        2,
      );
      return { created, deleted, events: events.events };
    }),
  );
  const meta = (m: any) => [
    m.resourceVersion,
    m.generation,
    m.deletionTimestamp !== undefined,
    m.deletionGracePeriodSeconds,
  ];
  expect(r.events.map((e) => [e.type, ...meta(e.object.metadata)])).toEqual([
    ["MODIFIED", String(Number(r.created.body.metadata.resourceVersion) + 1), 2, true, 0],
    ["DELETED", String(Number(r.created.body.metadata.resourceVersion) + 2), 2, true, 0],
  ]);
  expect(r.deleted.status).toBe(200);
  expect(meta(r.deleted.body.metadata)).toEqual(meta(r.events[1].object.metadata));
});

describe("a write that removes the last finalizer of a deleting object", () => {
  it("answers without managedFields when the finalizers were all its manager owned", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, { metadata: { name: "o", finalizers: ["example.com/keep"] } });
        yield* send("DELETE", `${CMS}/o`);
        return yield* send("PATCH", `${CMS}/o`, { metadata: { finalizers: null } }, MERGE);
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.metadata.finalizers).toBeUndefined();
    expect(r.body.metadata.managedFields).toBeUndefined();
  });

  it.each([
    ["a JSON patch", [{ op: "remove", path: "/metadata/finalizers" }], JSON_PATCH],
    ["a merge patch", { metadata: { finalizers: null } }, MERGE],
  ])("%s: answers the update at the stored version; DELETED carries the stored object", async (_w, p, h) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        yield* send("POST", KEX, kex("f"));
        const marked = yield* send("DELETE", `${KEX}/f`);
        const answer = yield* send("PATCH", `${KEX}/f`, p, h);
        const gone = yield* send("GET", `${KEX}/f`);
        const from = marked.body.metadata.resourceVersion;
        const events = yield* watch(`${KEX}?watch=1&resourceVersion=${from}`, 1);
        return { marked, answer, gone, events: events.events };
      }),
    );
    const stored = r.marked.body;
    expect(r.answer.status).toBe(200);
    expect(r.answer.body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect(r.answer.body.metadata.finalizers).toBeUndefined();
    expect(r.answer.body.metadata.managedFields[0].fieldsV1).toEqual({ "f:spec": { ".": {}, "f:a": {} } });
    expect(r.gone.status).toBe(404);
    const [deleted] = r.events;
    expect(deleted.type).toBe("DELETED");
    expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(
      Number(stored.metadata.resourceVersion),
    );
    const { resourceVersion: _r, ...storedMeta } = stored.metadata;
    const { resourceVersion: _d, ...deletedMeta } = deleted.object.metadata;
    expect({ ...deleted.object, metadata: deletedMeta }).toEqual({ ...stored, metadata: storedMeta });
    expect(deleted.object.metadata.finalizers).toEqual(["example.com/keep"]);
  });

  it("a PUT that also changes data: the answer has the change, the DELETED event the stored data", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, cm("p", KEEP));
        const marked = yield* send("DELETE", `${CMS}/p`);
        const { finalizers: _f, ...meta } = marked.body.metadata;
        const answer = yield* send("PUT", `${CMS}/p`, { ...marked.body, metadata: meta, data: { a: "2" } });
        const events = yield* watch(
          `${CMS}?watch=1&resourceVersion=${marked.body.metadata.resourceVersion}`,
          1,
        );
        return { marked, answer, events: events.events };
      }),
    );
    expect(r.answer.status).toBe(200);
    expect(r.answer.body.data).toEqual({ a: "2" });
    expect(r.answer.body.metadata.resourceVersion).toBe(r.marked.body.metadata.resourceVersion);
    expect(r.events.map((e) => [e.type, e.object.data, e.object.metadata.finalizers])).toEqual([
      ["DELETED", { a: "1" }, ["example.com/keep"]],
    ]);
  });
});
