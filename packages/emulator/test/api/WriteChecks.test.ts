// The checks a write passes before it is staged (src/api/WriteChecks.ts), through the API: the
// namespace must exist, a dry run stores nothing, and a body's resourceVersion is a precondition
// when given (409 on a stale one) and optional where the type allows unconditional updates.
// Creating in a terminating namespace (403) is pinned in Deletion.test.ts, and a custom
// resource's update without a resourceVersion (422) in Crd.test.ts.
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { cm, run, send } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";
const MERGE = { "content-type": "application/merge-patch+json" };

describe("WriteChecks", () => {
  it("refuses a create in a namespace that does not exist, naming it (404)", async () => {
    const r = await run(send("POST", "/api/v1/namespaces/nope/configmaps", cm("x")));
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe("NotFound");
    expect(r.body.message).toBe('namespaces "nope" not found');
  });

  it.each([
    ["a create", "POST", NS, cm("x")],
    ["an update", "PUT", `${NS}/x`, { ...cm("x"), data: { a: "2" } }],
  ])("stores nothing for %s with ?dryRun=All, yet answers with the object", async (_, method, url, body) => {
    const r = await run(
      Effect.gen(function* () {
        if (method === "PUT") yield* send("POST", NS, cm("x"));
        const before = yield* send("GET", `${NS}/x`);
        const dry = yield* send(method, `${url}?dryRun=All`, body);
        const after = yield* send("GET", `${NS}/x`);
        return { before, dry, after };
      }),
    );
    expect(r.dry.status).toBe(method === "POST" ? 201 : 200);
    expect(r.dry.body.metadata.name).toBe("x");
    expect(r.after.status).toBe(r.before.status);
    expect(r.after.body).toEqual(r.before.body);
  });

  it.each([
    ["a stale resourceVersion is a conflict (409)", "stale", 409],
    ["the current resourceVersion passes", "current", 200],
    ["no resourceVersion is no precondition", "none", 200],
  ])("for a merge patch, %s", async (_, which, status) => {
    const r = await run(
      Effect.gen(function* () {
        const created = yield* send("POST", NS, cm("x"));
        const rv: string = created.body.metadata.resourceVersion;
        yield* send("PATCH", `${NS}/x`, { data: { a: "2" } }, MERGE);
        const current = (yield* send("GET", `${NS}/x`)).body.metadata.resourceVersion;
        const metadata =
          which === "stale"
            ? { resourceVersion: rv }
            : which === "current"
              ? { resourceVersion: current }
              : {};
        return yield* send("PATCH", `${NS}/x`, { metadata, data: { a: "3" } }, MERGE);
      }),
    );
    expect(r.status).toBe(status);
    if (status === 409) expect(r.body.reason).toBe("Conflict");
    else expect(r.body.data).toEqual({ a: "3" });
  });

  it("takes an update without a resourceVersion where the type allows it (ConfigMaps)", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        return yield* send("PUT", `${NS}/x`, { ...cm("x"), data: { a: "2" } });
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ a: "2" });
  });
});
