/** Limits and bad input: body and object sizes, annotation totals, malformed JSON/YAML, and a fuzz run proving `handle` always answers. */

import * as Effect from "effect/Effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { CRD, cm, request, run, send } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";

describe("limits", () => {
  it("answers 413 for a request body over 3 MiB", async () => {
    const r = await run(
      send("POST", NS, cm("x", {}), {}).pipe(
        Effect.andThen(send("POST", NS, { ...cm("big"), data: { a: "x".repeat(3 * 1024 * 1024 + 1) } })),
      ),
    );
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Request entity too large: limit is 3145728",
      reason: "RequestEntityTooLarge",
      code: 413,
    });
  });

  it("answers 413 for a stored object over 1.5 MiB", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        return yield* send("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples", {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name: "big" },
          spec: { blob: "x".repeat(1.6 * 1024 * 1024) },
        });
      }),
    );
    expect(r.status).toBe(413);
    expect(r.body.reason).toBe("RequestEntityTooLarge");
  });

  it("answers 422 for configmap data over 1 MiB, as its validation does first", async () => {
    const r = await run(send("POST", NS, { ...cm("big"), data: { a: "x".repeat(1024 * 1024 + 1) } }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes',
    );
  });

  it("answers 422 for annotations over 256 KiB in total", async () => {
    const r = await run(
      send("POST", NS, cm("x", { annotations: { a: "x".repeat(200_000), b: "y".repeat(70_000) } })),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "x" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes',
    );
  });
});

describe("bad input", () => {
  it.each([
    ["malformed JSON", "{nope", "application/json", 400],
    ["a JSON array", "[1,2]", "application/json", 400],
    ["malformed YAML", "a: [b", "application/yaml", 400],
    ["an unknown media type", "x", "text/html", 415],
    ["an empty body", "", "application/json", 400],
  ])("answers %s with a Status", async (_n, body, type, code) => {
    const r = await run(send("POST", NS, body, { "content-type": type }));
    expect(r.status).toBe(code);
    expect(r.body.kind).toBe("Status");
    expect(r.body.code).toBe(code);
    expect(typeof r.body.message).toBe("string");
  });

  it("reads YAML as YAML 1.1 (yes is a boolean), failing typed string fields as the decoder does", async () => {
    const r = await run(
      send("POST", NS, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  on: yes\n", {
        "content-type": "application/yaml",
      }),
    );
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string',
    );
  });

  it("accepts YAML bodies", async () => {
    const r = await run(
      send("POST", NS, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\n", {
        "content-type": "application/yaml",
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ k: "v" });
  });

  it("answers every random request without failing", async () => {
    const methods = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "BREW", "");
    const segment = fc.oneof(
      fc.constantFrom(
        "api",
        "apis",
        "v1",
        "namespaces",
        "default",
        "configmaps",
        "status",
        "scale",
        "watch",
        "apps",
        "%",
        "%zz",
        "..",
        "",
      ),
      fc.string({ maxLength: 6 }),
    );
    const path = fc.array(segment, { maxLength: 7 }).map((s) => `/${s.join("/")}`);
    const query = fc.constantFrom(
      "",
      "watch=true&timeoutSeconds=0",
      "limit=-1",
      "continue=%%%",
      "labelSelector=((",
      "fieldSelector=a",
      "resourceVersion=abc",
      "dryRun=All",
      "force=true",
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.uint8Array({ maxLength: 64 }),
      fc.jsonValue().map((v) => new TextEncoder().encode(JSON.stringify(v))),
    );
    const type = fc.constantFrom(
      "application/json",
      "application/yaml",
      "application/merge-patch+json",
      "application/json-patch+json",
      "application/strategic-merge-patch+json",
      "application/apply-patch+yaml",
      "bogus",
    );
    const answers = await run(
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        const samples = fc.sample(fc.tuple(methods, path, query, body, type), { numRuns: 600, seed: 42 });
        const statuses: Array<number> = [];
        for (const [method, p, q, b, t] of samples) {
          const response = yield* kube.handle({
            ...request(method, `${p}?${q}`, undefined, { "content-type": t }),
            body: b,
          });
          statuses.push(response.status);
        }
        return statuses;
      }),
    );
    expect(answers).toHaveLength(600);
    for (const status of answers)
      expect(status === 200 || status === 201 || (status >= 400 && status < 600)).toBe(true);
    expect(answers.filter((s) => s === 500)).toEqual([]);
  });
});
