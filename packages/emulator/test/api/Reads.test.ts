/** Lists: selectors over `handle`, pagination with continue tokens (410 once expired), resourceVersion and resourceVersionMatch. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { cm, run, send } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";
const names = (body: any): Array<string> => body.items.map((i: any) => i.metadata.name);

const seed = Effect.gen(function* () {
  for (const [name, app] of [
    ["a", "web"],
    ["b", "db"],
    ["c", "web"],
    ["d", "cache"],
    ["e", "web"],
  ] as const)
    yield* send("POST", NS, cm(name, { labels: { app } }));
  yield* send("POST", "/api/v1/namespaces/kube-system/configmaps", cm("z"));
});

describe("list", () => {
  it.each([
    ["", ["a", "b", "c", "d", "e"]],
    ["labelSelector=app%3Dweb", ["a", "c", "e"]],
    ["labelSelector=app%20notin%20(web)", ["b", "d"]],
    ["labelSelector=app%20in%20(db,cache)", ["b", "d"]],
    ["fieldSelector=metadata.name%3Dc", ["c"]],
    ["fieldSelector=metadata.name!%3Dc&labelSelector=app%3Dweb", ["a", "e"]],
  ])("?%s", async (query, expected) => {
    const r = await run(seed.pipe(Effect.andThen(send("GET", `${NS}?${query}`))));
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe("ConfigMapList");
    expect(r.body.apiVersion).toBe("v1");
    expect(names(r.body)).toEqual(expected);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it.each([
    ["/api/v1/pods?fieldSelector=spec.nope%3Dx", "field label not supported: spec.nope"],
    [
      "/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx",
      "field label not supported: metadata.namespace",
    ],
    [
      "/apis/apps/v1/deployments?fieldSelector=spec.replicas%3D1",
      '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
  ])("rejects unsupported field labels as the kind's conversion does: %s", async (url, message) => {
    const r = await run(send("GET", url));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
  });

  it("lists across namespaces", async () => {
    const r = await run(seed.pipe(Effect.andThen(send("GET", "/api/v1/configmaps"))));
    expect(r.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual([
      "default/a",
      "default/b",
      "default/c",
      "default/d",
      "default/e",
      "kube-system/z",
    ]);
  });

  it("pages with limit and continue, consistently at the first page's resourceVersion", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* seed;
        const p1 = yield* send("GET", `${NS}?limit=2`);
        yield* send("POST", NS, cm("b2"));
        yield* send("DELETE", `${NS}/c`);
        const p2 = yield* send(
          "GET",
          `${NS}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`,
        );
        const p3 = yield* send(
          "GET",
          `${NS}?limit=2&continue=${encodeURIComponent(p2.body.metadata.continue)}`,
        );
        return { p1, p2, p3 };
      }),
    );
    expect(names(r.p1.body)).toEqual(["a", "b"]);
    expect(r.p1.body.metadata.remainingItemCount).toBe(3);
    expect(names(r.p2.body)).toEqual(["c", "d"]);
    expect(r.p2.body.metadata.resourceVersion).toBe(r.p1.body.metadata.resourceVersion);
    expect(names(r.p3.body)).toEqual(["e"]);
    expect(r.p3.body.metadata.continue).toBeUndefined();
  });

  it("keeps a paged list consistent through a burst of writes longer than the history size", async () => {
    // kube-apiserver serves the pages of a list from etcd until it is compacted (minutes), so an
    // operator listing while objects are written finishes its listing; the emulator did not.
    const r = await run(
      Effect.gen(function* () {
        yield* seed;
        const p1 = yield* send("GET", `${NS}?limit=2`);
        for (let i = 0; i < 30; i++) yield* send("POST", NS, cm(`burst-${i}`));
        yield* send("DELETE", `${NS}/d`);
        const p2 = yield* send(
          "GET",
          `${NS}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`,
        );
        return { p1, p2 };
      }),
      { historySize: 4 },
    );
    expect(r.p2.status).toBe(200);
    expect(names(r.p2.body)).toEqual(["c", "d"]);
    expect(r.p2.body.metadata.resourceVersion).toBe(r.p1.body.metadata.resourceVersion);
  });

  it("answers 410 Expired for a continue token older than the history", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* seed;
        const p1 = yield* send("GET", `${NS}?limit=2`);
        yield* send("POST", NS, cm("f"));
        yield* (yield* KubeEmulator).compactHistory;
        return yield* send("GET", `${NS}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
      }),
    );
    expect(r.status).toBe(410);
    expect(r.body.reason).toBe("Expired");
    expect(r.body.message).toMatch(
      /^The provided continue parameter is too old to display a consistent list result\./,
    );
  });

  it("lists at an exact older resourceVersion", async () => {
    const r = await run(
      Effect.gen(function* () {
        const a = yield* send("POST", NS, cm("a"));
        yield* send("POST", NS, cm("b"));
        yield* send("DELETE", `${NS}/a`);
        return yield* send(
          "GET",
          `${NS}?resourceVersion=${a.body.metadata.resourceVersion}&resourceVersionMatch=Exact`,
        );
      }),
    );
    expect(names(r.body)).toEqual(["a"]);
  });

  it.each([
    [
      "resourceVersionMatch=Exact",
      422,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      "resourceVersion=1&resourceVersionMatch=Bogus",
      422,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
    ],
    ["continue=garbage", 400, /^invalid continue token: continue key is not valid: /],
    [
      `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}').toString("base64url")}`,
      400,
      "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    ],
    ["labelSelector=a%20b", 400, undefined],
    [
      "fieldSelector=spec.nope%3Dx",
      400,
      '"spec.nope" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    ["resourceVersion=999999", 504, /^Timeout: Too large resource version: 999999, current: \d+$/],
  ])("?%s answers %i", async (query, code, message) => {
    const r = await run(send("GET", `${NS}?${query}`));
    expect(r.status).toBe(code);
    if (typeof message === "string") expect(r.body.message).toBe(message);
    else if (message !== undefined) expect(r.body.message).toMatch(message);
  });
});
