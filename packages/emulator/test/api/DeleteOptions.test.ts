// A DELETE request's options (src/api/DeleteOptions.ts): from the body or, without one, the query
// (never both), checked with kube-apiserver's 422 errors, and kept in Go's field order for
// admission webhooks.
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { parseOptions } from "../../src/api/DeleteOptions.ts";

const request = (query: string, body?: unknown) => ({
  method: "DELETE",
  path: "/api/v1/namespaces/default/configmaps/x",
  query: new URLSearchParams(query),
  headers: body === undefined ? {} : { "content-type": "application/json" },
  body: body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body)),
  user: { username: "test", groups: [] },
});

describe("DeleteOptions.parseOptions", () => {
  it.each([
    ["no options", "", undefined, { propagation: undefined, orphanDependents: undefined, dryRun: false }],
    [
      "the query's",
      "propagationPolicy=Foreground&dryRun=All",
      undefined,
      { propagation: "Foreground", dryRun: true },
    ],
    ["the query's orphanDependents", "orphanDependents=true", undefined, { orphanDependents: true }],
    // A body's options are all there is: the query's dryRun next to it is ignored.
    [
      "the body's alone",
      "dryRun=All",
      { propagationPolicy: "Orphan" },
      { propagation: "Orphan", dryRun: false },
    ],
    [
      "the body's preconditions",
      "",
      { preconditions: { uid: "u-1", resourceVersion: "7" } },
      { uid: "u-1", resourceVersion: "7" },
    ],
  ])("reads %s", (_, query, body, expected) => {
    const parsed = parseOptions(request(query, body));
    expect(Result.isSuccess(parsed)).toBe(true);
    expect(Result.getOrThrow(parsed)).toMatchObject(expected);
  });

  it("keeps the options in Go's field order for admission, kind and apiVersion first", () => {
    const parsed = parseOptions(
      request("", {
        kind: "DeleteOptions",
        apiVersion: "v1",
        dryRun: ["All"],
        propagationPolicy: "Background",
        gracePeriodSeconds: 0,
      }),
    );
    const raw = Result.getOrThrow(parsed).raw;
    expect(Object.keys(raw)).toEqual([
      "kind",
      "apiVersion",
      "gracePeriodSeconds",
      "propagationPolicy",
      "dryRun",
    ]);
    expect(raw.apiVersion).toBe("meta.k8s.io/v1");
  });

  it.each([
    [
      "an unknown propagationPolicy",
      "propagationPolicy=Sideways",
      undefined,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    ],
    [
      "orphanDependents with a propagationPolicy",
      "",
      { orphanDependents: false, propagationPolicy: "Orphan" },
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    ],
    [
      "a dryRun other than All",
      "dryRun=Some",
      undefined,
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
    ],
  ])("refuses %s with 422", (_, query, body, message) => {
    const parsed = parseOptions(request(query, body));
    expect(Result.isFailure(parsed)).toBe(true);
    if (Result.isFailure(parsed)) {
      expect(parsed.failure.status.code).toBe(422);
      expect(parsed.failure.status.message).toBe(message);
    }
  });

  it("refuses a body that is not an object with 400", () => {
    const parsed = parseOptions(request("", ["Orphan"]));
    expect(Result.isFailure(parsed)).toBe(true);
    if (Result.isFailure(parsed)) expect(parsed.failure.status.code).toBe(400);
  });
});
