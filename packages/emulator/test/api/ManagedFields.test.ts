/**
 * When managedFields are tracked, as kube-apiserver v1.34.4's field manager does: creates and
 * server-side apply start tracking; a non-apply write to an object without managedFields does not;
 * the first apply to such an object attributes its fields to `before-first-apply`.
 */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { CRD, run, send } from "./Harness.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const KEX = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";
const MERGE = { "content-type": "application/merge-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };
const AGENT = { "user-agent": "kopf/1.0" };

const summary = (body: any) =>
  (body.metadata.managedFields ?? []).map((e: any) => [e.manager, e.operation, e.subresource, e.fieldsV1]);

describe("non-apply writes to an object without managedFields", () => {
  it.each([
    ["a custom resource's status", `${KEX}/m/status`, { status: { x: 1 } }],
    ["a custom resource's spec", `${KEX}/m`, { spec: { b: 1 } }],
    ["its labels, with a fieldManager", `${KEX}/m?fieldManager=kopf`, { metadata: { labels: { a: "b" } } }],
  ])("%s: no entry is started", async (_what, path, patch) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        const created = yield* send(
          "POST",
          KEX,
          { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "m" } },
          AGENT,
        );
        const patched = yield* send("PATCH", path, patch, { ...MERGE, ...AGENT });
        return { created, patched };
      }),
    );
    expect(r.created.body.metadata.managedFields).toBeUndefined();
    expect(r.patched.status).toBe(200);
    expect(r.patched.body.metadata.resourceVersion).not.toBe(r.created.body.metadata.resourceVersion);
    expect(r.patched.body.metadata.managedFields).toBeUndefined();
  });

  it("a created object with fields is tracked, and later writes add their managers", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, { metadata: { name: "t" }, data: { a: "1" } }, AGENT);
        return yield* send("PATCH", `${CMS}/t`, { data: { b: "2" } }, { ...MERGE, "user-agent": "other" });
      }),
    );
    expect(summary(r.body)).toEqual([
      ["kopf", "Update", undefined, { "f:data": { ".": {}, "f:a": {} } }],
      ["other", "Update", undefined, { "f:data": { "f:b": {} } }],
    ]);
  });

  it("the namespaces the apiserver creates are tracked as kube-apiserver's, so label writes are tracked", async () => {
    const r = await run(
      Effect.gen(function* () {
        const seeded = yield* send("GET", "/api/v1/namespaces/default");
        const labelled = yield* send(
          "PATCH",
          "/api/v1/namespaces/default",
          { metadata: { labels: { team: "a" } } },
          { ...MERGE, ...AGENT },
        );
        return { seeded, labelled };
      }),
    );
    const label = { "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } } };
    expect(summary(r.seeded.body)).toEqual([["kube-apiserver", "Update", undefined, label]]);
    // Ordered by time, then manager: the test may cross a second, so compare them by manager.
    const byManager = (a: Array<any>, b: Array<any>) => String(a[0]).localeCompare(String(b[0]));
    expect(summary(r.labelled.body).sort(byManager)).toEqual([
      ["kopf", "Update", undefined, { "f:metadata": { "f:labels": { "f:team": {} } } }],
      ["kube-apiserver", "Update", undefined, label],
    ]);
  });
});

describe("managedFields written by a client", () => {
  const JSON_PATCH = { "content-type": "application/json-patch+json" };
  it.each([
    ["an empty list resets them", { metadata: { managedFields: [] } }, MERGE, true, undefined],
    [
      "one empty entry resets them, and the write is not tracked",
      { metadata: { managedFields: [{}] }, data: { z: "1" } },
      MERGE,
      true,
      undefined,
    ],
    [
      "valid entries replace them",
      [{ op: "replace", path: "/metadata/managedFields/0/manager", value: "renamed" }],
      JSON_PATCH,
      true,
      [["renamed", "Update", undefined, { "f:data": { ".": {}, "f:a": {} } }]],
    ],
    [
      "undecodable entries are ignored",
      [{ op: "replace", path: "/metadata/managedFields/0/fieldsType", value: "Bogus" }],
      JSON_PATCH,
      false,
      [["kopf", "Update", undefined, { "f:data": { ".": {}, "f:a": {} } }]],
    ],
  ])("%s", async (_what, patch, headers, written, managed) => {
    const r = await run(
      Effect.gen(function* () {
        const created = yield* send("POST", CMS, { metadata: { name: "r" }, data: { a: "1" } }, AGENT);
        const patched = yield* send("PATCH", `${CMS}/r`, patch, headers);
        return { created, patched };
      }),
    );
    expect(r.patched.status).toBe(200);
    expect(r.patched.body.metadata.resourceVersion !== r.created.body.metadata.resourceVersion).toBe(written);
    expect(r.patched.body.metadata.managedFields === undefined ? undefined : summary(r.patched.body)).toEqual(
      managed,
    );
  });
});

describe("the first apply to an object without managedFields", () => {
  it("attributes the fields already there to before-first-apply", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, { metadata: { name: "u" } });
        yield* send("PATCH", `${CMS}/u`, { data: { b: "1" } }, MERGE);
        return yield* send(
          "PATCH",
          `${CMS}/u?fieldManager=x`,
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "u" }, data: { c: "2" } },
          APPLY,
        );
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ b: "1", c: "2" });
    expect(summary(r.body)).toEqual([
      ["x", "Apply", undefined, { "f:data": { "f:c": {} } }],
      ["before-first-apply", "Update", undefined, { "f:data": { ".": {}, "f:b": {} } }],
    ]);
  });

  it("of the values already there is stored: only managedFields change", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, { metadata: { name: "s" } });
        const patched = yield* send("PATCH", `${CMS}/s`, { data: { b: "1" } }, MERGE);
        const applied = yield* send(
          "PATCH",
          `${CMS}/s?fieldManager=x`,
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "s" }, data: { b: "1" } },
          APPLY,
        );
        return { patched, applied };
      }),
    );
    expect(r.applied.status).toBe(200);
    expect(r.applied.body.metadata.resourceVersion).not.toBe(r.patched.body.metadata.resourceVersion);
    expect(summary(r.applied.body)).toEqual([
      ["x", "Apply", undefined, { "f:data": { "f:b": {} } }],
      ["before-first-apply", "Update", undefined, { "f:data": { ".": {}, "f:b": {} } }],
    ]);
    // An apply that changes no value gives its new entry no time.
    expect(r.applied.body.metadata.managedFields[0].time).toBeUndefined();
    expect(r.applied.body.metadata.managedFields[1].time).toMatch(/Z$/);
  });

  it("conflicts with before-first-apply over a field it changes, and stores nothing", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        yield* send("POST", KEX, { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "v" } });
        const patched = yield* send("PATCH", `${KEX}/v`, { spec: { b: 1 } }, MERGE);
        const applied = yield* send(
          "PATCH",
          `${KEX}/v?fieldManager=x`,
          { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "v" }, spec: { b: 2 } },
          APPLY,
        );
        const after = yield* send("GET", `${KEX}/v`);
        return { patched, applied, after };
      }),
    );
    expect(r.applied.status).toBe(409);
    expect(r.applied.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using kopf.dev/v1: .spec.b',
    );
    expect(r.after.body).toEqual(r.patched.body);
  });
});
