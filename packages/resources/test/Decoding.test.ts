import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { CustomResource } from "../src/index.ts";
import { Example } from "./fixtures.ts";

const body = (spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: "kopf.dev/v2",
  kind: "TypedExample",
  metadata: { name: "a", namespace: "default" },
  spec,
  ...extra,
});

describe("decodeBody", () => {
  const decode = Example.version("v2")[CustomResource.SERVED].decode;

  it("fills in defaults, drops undeclared fields, keeps the other top-level fields", () => {
    const result = decode(body({ replicas: 2, extra: true }, { status: { phase: "Ready", junk: 1 } }));
    expect(result).toEqual(
      Result.succeed({
        apiVersion: "kopf.dev/v2",
        kind: "TypedExample",
        metadata: { name: "a", namespace: "default" },
        spec: { replicas: 2, mode: "safe" },
        status: { phase: "Ready" },
      }),
    );
  });

  it.each([
    [
      "a wrong type",
      { replicas: "2" },
      [{ path: "spec.replicas", message: expect.stringContaining("number") }],
    ],
    [
      "out of range",
      { replicas: 11 },
      [{ path: "spec.replicas", message: expect.stringContaining("between 1 and 10") }],
    ],
    ["a missing field", {}, [{ path: "spec.replicas", message: "Missing key" }]],
    [
      "a bad enum",
      { replicas: 1, mode: "slow" },
      [{ path: "spec.mode", message: expect.stringContaining('"fast" | "safe"') }],
    ],
    [
      "every field at once",
      { replicas: 0, name: "UP" },
      [
        { path: "spec.replicas", message: expect.any(String) },
        { path: "spec.name", message: expect.stringContaining("^[a-z]+$") },
      ],
    ],
    ["no spec", undefined, [{ path: "spec", message: expect.any(String) }]],
  ])("names the field of %s", (_, spec, issues) => {
    expect(decode(body(spec))).toEqual(Result.fail(issues));
  });

  it("a null in a defaulted field gets the default, as the API server does", () => {
    expect(Result.map(decode(body({ replicas: 1, mode: null })), (b) => b.spec)).toEqual(
      Result.succeed({ replicas: 1, mode: "safe" }),
    );
  });

  it.each<[string, unknown, Record<string, unknown>]>([
    ["an optional field", { replicas: 1, name: null }, { replicas: 1, mode: "safe" }],
    ["the status", { replicas: 1 }, { replicas: 1, mode: "safe" }],
  ])("a null in a non-nullable %s is dropped first, as the API server does", (_, spec, expected) => {
    const decoded = decode(body(spec, { status: null }));
    expect(Result.map(decoded, (b) => b.spec)).toEqual(Result.succeed(expected));
    expect(Result.map(decoded, (b) => "status" in b)).toEqual(Result.succeed(false));
  });

  it("a null in a required field is a missing field", () => {
    expect(decode(body({ replicas: null }))).toEqual(
      Result.fail([{ path: "spec.replicas", message: "Missing key" }]),
    );
  });

  it("a body that is not an object", () => {
    expect(decode("x")).toEqual(Result.fail([{ path: "", message: "the body is not an object" }]));
  });
});
