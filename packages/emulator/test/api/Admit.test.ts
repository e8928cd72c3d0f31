// Covers admission as the emulator's core runs it for every write, against what kube-apiserver
// v1.34.4 showed when it called the same webhooks: warnings (each text once per request over both
// phases, and sent with a denial, a 409 or a delete), the `request.options` webhooks see (the
// query's dryRun, fieldManager and fieldValidation; a patch is admitted with the create or update
// options it becomes), the generation mutating and validating webhooks see on updates (bumped
// after mutation, so a webhook's own spec change counts), and map keys sorted as Go writes them.
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import type { AdmissionDecision, AdmissionHookShape, AdmissionRequest } from "../../src/api/Admission.ts";
import type * as JsonPatch from "../../src/api/JsonPatch.ts";
import { CRD, cm, run, send } from "./Harness.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const KEX = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const MERGE = { "content-type": "application/merge-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };

const FORBIDDEN = {
  kind: "Status" as const,
  apiVersion: "v1" as const,
  metadata: {},
  status: "Failure" as const,
  message: "no",
  reason: "Forbidden" as const,
  code: 403,
};

type Phase = (request: AdmissionRequest) => AdmissionDecision;

/** A hook that records every review (phase, request) and answers with `mutate`/`validate`. */
const recording = (mutate: Phase, validate: Phase) => {
  const seen: Array<{ readonly phase: "mutate" | "validate"; readonly request: AdmissionRequest }> = [];
  const phase =
    (name: "mutate" | "validate", answer: Phase) =>
    (request: AdmissionRequest): Effect.Effect<AdmissionDecision> =>
      Effect.sync(() => {
        seen.push({ phase: name, request });
        return answer(request);
      });
  const hook: AdmissionHookShape = { mutate: phase("mutate", mutate), validate: phase("validate", validate) };
  return { seen, hook };
};

const allowing =
  (warnings: ReadonlyArray<string> = [], patches: ReadonlyArray<JsonPatch.Operation> = []) =>
  (): AdmissionDecision => ({ _tag: "Allow", patches, warnings });

const labelsOf = (request: AdmissionRequest) =>
  (request.object as { metadata?: { labels?: Record<string, string> } } | null)?.metadata?.labels ?? {};

describe("warnings", () => {
  // Both webhooks warn "dup": the real server sent it once.
  const phases = () =>
    recording(allowing(["dup", "mutating only"]), (request) =>
      labelsOf(request).deny === "yes"
        ? { _tag: "Deny", status: FORBIDDEN, warnings: ["dup", "validating only"] }
        : { _tag: "Allow", patches: [], warnings: ["dup", "validating only"] },
    );
  const ALL = '299 - "dup", 299 - "mutating only", 299 - "validating only"';

  it("sends each text once over the mutating and validating phases", async () => {
    const { hook } = phases();
    const created = await run(send("POST", CMS, cm("a")), { admission: hook });
    expect(created.status).toBe(201);
    expect(created.headers.warning).toBe(ALL);
  });

  it("sends the warnings given before and with a denial along with the 403", async () => {
    const { hook } = phases();
    const denied = await run(send("POST", CMS, cm("d", { labels: { deny: "yes" } })), { admission: hook });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe("no");
    expect(denied.headers.warning).toBe(ALL);
  });

  it("sends a failed mutation's warnings with its error, and no validating ones", async () => {
    const { hook, seen } = recording(
      () => ({
        _tag: "Deny",
        status: { ...FORBIDDEN, code: 500, reason: "InternalError" },
        warnings: ["early"],
      }),
      allowing(["never"]),
    );
    const failed = await run(send("POST", CMS, cm("m")), { admission: hook });
    expect(failed.status).toBe(500);
    expect(failed.headers.warning).toBe('299 - "early"');
    expect(seen.map((s) => s.phase)).toEqual(["mutate"]);
  });

  it("sends the admission warnings with a 409 for an object that exists", async () => {
    const { hook } = phases();
    const again = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, cm("a"));
        return yield* send("POST", CMS, cm("a"));
      }),
      { admission: hook },
    );
    expect(again.status).toBe(409);
    expect(again.headers.warning).toBe(ALL);
  });

  it("sends a delete's admission warnings, once for a whole collection", async () => {
    const { hook } = recording(allowing(), (request) => ({
      _tag: "Allow",
      patches: [],
      warnings: request.operation === "DELETE" ? ["deleting", `deleting ${request.name}`] : [],
    }));
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, cm("a", { labels: { all: "yes" } }));
        yield* send("POST", CMS, cm("b", { labels: { all: "yes" } }));
        yield* send("POST", CMS, cm("c"));
        const one = yield* send("DELETE", `${CMS}/c`);
        const many = yield* send("DELETE", `${CMS}?labelSelector=all%3Dyes`);
        return { one, many };
      }),
      { admission: hook },
    );
    expect(r.one.headers.warning).toBe('299 - "deleting", 299 - "deleting c"');
    expect(r.many.headers.warning).toBe('299 - "deleting", 299 - "deleting a", 299 - "deleting b"');
  });
});

describe("request.options", () => {
  // Each row is what the real server sent for the same request.
  it.each<{
    name: string;
    method: string;
    url: string;
    body: unknown;
    headers?: Record<string, string>;
    options: unknown;
  }>([
    {
      name: "a dry-run create with a field manager and validation",
      method: "POST",
      url: `${CMS}?dryRun=All&fieldManager=fm1&fieldValidation=Strict`,
      body: cm("n"),
      options: {
        kind: "CreateOptions",
        apiVersion: "meta.k8s.io/v1",
        dryRun: ["All"],
        fieldManager: "fm1",
        fieldValidation: "Strict",
      },
    },
    {
      name: "a plain create",
      method: "POST",
      url: CMS,
      body: cm("n"),
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    },
    {
      name: "a dry-run merge patch",
      method: "PATCH",
      url: `${CMS}/x?fieldManager=fm2&dryRun=All`,
      body: { data: { k: "v" } },
      headers: MERGE,
      options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"], fieldManager: "fm2" },
    },
    {
      name: "a replace (PUT)",
      method: "PUT",
      url: `${CMS}/x?fieldManager=fm4`,
      body: cm("x"),
      options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "fm4" },
    },
    {
      name: "a server-side apply that creates",
      method: "PATCH",
      url: `${CMS}/new?fieldManager=fm3`,
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "new" } },
      headers: APPLY,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "fm3" },
    },
    {
      name: "a forced server-side apply that updates (force is no update option)",
      method: "PATCH",
      url: `${CMS}/x?fieldManager=fm3&force=true`,
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "b" } },
      headers: APPLY,
      options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "fm3" },
    },
  ])("$name", async ({ method, url, body, headers, options }) => {
    const { hook, seen } = recording(allowing(), allowing());
    const answer = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, cm("x"));
        seen.length = 0;
        return yield* send(method, url, body, headers);
      }),
      { admission: hook },
    );
    expect(answer.status).toBeLessThan(300);
    expect(seen.map((s) => s.phase)).toEqual(["mutate", "validate"]);
    for (const s of seen) expect(s.request.options).toEqual(options);
  });
});

describe("generation on updates", () => {
  const generationOf = (request: AdmissionRequest) =>
    (request.object as { metadata?: { generation?: number } }).metadata?.generation;

  it("mutating webhooks see the old generation, validating ones the new; a webhook's spec change bumps it", async () => {
    const { hook, seen } = recording(
      (request) =>
        labelsOf(request).spec === "yes"
          ? { _tag: "Allow", patches: [{ op: "add", path: "/spec/paused", value: true }], warnings: [] }
          : { _tag: "Allow", patches: [], warnings: [] },
      allowing(),
    );
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CRDS, CRD);
        seen.length = 0;
        const created = yield* send("POST", KEX, {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name: "k" },
          spec: { replicas: 1 },
        });
        const onCreate = seen.splice(0).map((s) => [s.phase, generationOf(s.request)]);
        const specPatched = yield* send("PATCH", `${KEX}/k`, { spec: { replicas: 2 } }, MERGE);
        const onSpec = seen.splice(0).map((s) => [s.phase, generationOf(s.request)]);
        const labelled = yield* send("PATCH", `${KEX}/k`, { metadata: { labels: { spec: "yes" } } }, MERGE);
        const onLabel = seen.splice(0).map((s) => [s.phase, generationOf(s.request)]);
        const untouched = yield* send("PATCH", `${KEX}/k`, { metadata: { labels: { other: "x" } } }, MERGE);
        return { created, specPatched, labelled, untouched, onCreate, onSpec, onLabel };
      }),
      { admission: hook },
    );
    expect(r.onCreate).toEqual([
      ["mutate", undefined],
      ["validate", 1],
    ]);
    expect(r.onSpec).toEqual([
      ["mutate", 1],
      ["validate", 2],
    ]);
    expect(r.specPatched.body.metadata.generation).toBe(2);
    expect(r.onLabel).toEqual([
      ["mutate", 2],
      ["validate", 3],
    ]);
    expect(r.labelled.body.metadata.generation).toBe(3);
    expect(r.labelled.body.spec.paused).toBe(true);
    expect(r.untouched.body.metadata.generation).toBe(3);
  });
});

describe("what an update may change, after mutating admission", () => {
  // kube-apiserver resets what an update may not change after its mutating webhooks ran: a status
  // write keeps only the status (and managedFields), a main-resource write the old status.
  it("discards a webhook's label change on a status write and its status change on a main write", async () => {
    let calls = 0;
    const meddle: Phase = (request) => {
      calls++;
      const status = (request.object as { status?: unknown } | null)?.status;
      return {
        _tag: "Allow",
        patches: [
          { op: "add", path: "/metadata/labels", value: { meddled: String(calls) } },
          typeof status === "object" && status !== null
            ? { op: "add", path: "/status/meddled", value: calls }
            : { op: "add", path: "/status", value: { meddled: calls } },
        ],
        warnings: [],
      };
    };
    const { hook } = recording(meddle, allowing());
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CRDS, CRD);
        calls = 0;
        const created = yield* send("POST", KEX, {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name: "k" },
          spec: {},
        });
        const status = yield* send("PATCH", `${KEX}/k/status`, { status: { phase: "Running" } }, MERGE);
        const main = yield* send("PATCH", `${KEX}/k`, { spec: { x: 1 } }, MERGE);
        return { created, status, main };
      }),
      { admission: hook },
    );
    expect(r.created.body.metadata.labels).toEqual({ meddled: "1" });
    expect(r.created.body.status).toBeUndefined();
    expect(r.status.body.metadata.labels).toEqual({ meddled: "1" });
    expect(r.status.body.status).toEqual({ phase: "Running", meddled: 2 });
    expect(r.main.body.metadata.labels).toEqual({ meddled: "3" });
    expect(r.main.body.status).toEqual({ phase: "Running", meddled: 2 });
    expect(r.main.body.spec).toEqual({ x: 1 });
  });
});

describe("map key order", () => {
  it("webhooks and clients get labels, annotations and data with sorted keys, as Go writes maps", async () => {
    const { hook, seen } = recording(allowing(), allowing());
    const created = await run(
      send("POST", CMS, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "o",
          labels: { zz: "1", aa: "2" },
          annotations: { zeta: "1", alpha: "2", mid: "3" },
        },
        data: { b: "1", a: "2" },
      }),
      { admission: hook },
    );
    const keys = (o: any) => ({
      labels: Object.keys(o.metadata.labels),
      annotations: Object.keys(o.metadata.annotations),
      data: Object.keys(o.data),
    });
    const sorted = { labels: ["aa", "zz"], annotations: ["alpha", "mid", "zeta"], data: ["a", "b"] };
    for (const s of seen) expect(keys(s.request.object)).toEqual(sorted);
    expect(keys(created.body)).toEqual(sorted);
  });
});
