// Covers turning login handlers' results into vault credentials (docs/behaviour/operator.md#logins): nulls skipped,
// connection info validated, expirations as numbers, Dates or ISO texts (naive = UTC), bad
// results named by handler id, and no results at all as a LoginError.
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import { collect, NO_CREDENTIALS } from "../src/Login.ts";

describe("Login.collect", () => {
  it("keys credentials by handler id and skips handlers that returned nothing", () => {
    const result = collect([
      ["a", { server: "https://k:6443", token: "ta", priority: 5 }],
      ["b", null],
      ["c", undefined],
    ]);
    const credentials = Result.getOrThrow(result) as Record<string, { token?: string; priority: number }>;
    assert.deepStrictEqual(Object.keys(credentials), ["a"]);
    assert.strictEqual(credentials.a?.priority, 5);
  });

  it.each([
    ["epoch millis", 1_000, 1_000],
    ["a Date", new Date(Date.UTC(2030, 0, 1)), Date.UTC(2030, 0, 1)],
    ["an aware ISO text", "2030-01-01T02:00:00+02:00", Date.UTC(2030, 0, 1)],
    ["a naive ISO text (UTC)", "2030-01-01T00:00:00", Date.UTC(2030, 0, 1)],
  ] as const)("accepts expirations as %s", (_, expiration, millis) => {
    const credentials = Result.getOrThrow(collect([["x", { server: "https://k", token: "t", expiration }]]));
    assert.strictEqual((credentials as Record<string, { expiration?: number }>).x?.expiration, millis);
  });

  it.each([
    ["a non-object", "a token string", /neither connection info/],
    ["an object without a server", { token: "t" }, /neither connection info/],
    ["conflicting fields", { server: "https://k", caPath: "/ca", caData: "PEM" }, /Both CA path & data/],
    ["a bad expiration", { server: "https://k", expiration: "soon" }, /unusable expiration/],
  ] as const)("rejects %s, naming the handler", (_, value, message) => {
    const result = collect([["handler_x", value]]);
    assert.isTrue(Result.isFailure(result));
    if (Result.isFailure(result)) {
      assert.match(result.failure.message, message);
      assert.include(result.failure.message, '"handler_x"');
    }
  });

  it("no credentials at all is a LoginError with Kopf's message", () => {
    const result = collect([["a", null]]);
    assert.isTrue(Result.isFailure(result) && result.failure.message === NO_CREDENTIALS);
  });
});
