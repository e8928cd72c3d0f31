// Covers annotation key forming (docs/behaviour/progress.md#annotation-keys, vectors docs/behaviour/progress.md#annotation-keys): safe names, blake2b hash suffixes,
// V1/V2 keys, key deduplication, the -ofDRS collision mark, prefix validation, and the
// 63-character name limit as a property.
import { describe, expect, it } from "@effect/vitest";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import * as AnnotationKeys from "../src/AnnotationKeys.ts";

const P = "my-operator.example.com";

// The docs/behaviour/progress.md#annotation-keys table, column by column ("–" cells are not listed).
const V1_VECTORS: ReadonlyArray<readonly [string, string, string]> = [
  ["a_b.c-d/e", "a_b.c-d/e", `${P}/a_b.c-d.e`],
  ["x", "x", `${P}/x`],
  ["x*39", "x".repeat(39), `${P}/${"x".repeat(39)}`],
  ["x*40", "x".repeat(40), `${P}/${"x".repeat(32)}-tEokcg`],
  ["y*40", "y".repeat(40), `${P}/${"y".repeat(32)}-VZlvhw`],
  ["z*40", "z".repeat(40), `${P}/${"z".repeat(32)}-LlPQyA`],
  ["fn*323", "fn".repeat(323), `${P}/${"fn".repeat(16)}-Az-r.g`],
];

const V2_VECTORS: ReadonlyArray<readonly [string, string, string]> = [
  ["a_b.c-d/e", "a_b.c-d/e", `${P}/a_b.c-d.e`],
  ["x", "x", `${P}/x`],
  ["x*39", "x".repeat(39), `${P}/${"x".repeat(39)}`],
  ["x*40", "x".repeat(40), `${P}/${"x".repeat(40)}`],
  ["x*63", "x".repeat(63), `${P}/${"x".repeat(63)}`],
  ["x*64", "x".repeat(64), `${P}/${"x".repeat(56)}-SItAqA`],
  ["y*64", "y".repeat(64), `${P}/${"y".repeat(56)}-0d251g`],
  ["z*64", "z".repeat(64), `${P}/${"z".repeat(56)}-E7wvIA`],
  ["fn*323", "fn".repeat(323), `${P}/${"fn".repeat(28)}-Az-r.g`],
];

describe("AnnotationKeys", () => {
  it.each(V1_VECTORS)("V1 key of %s", (_, key, expected) => {
    expect(AnnotationKeys.v1Key(P, key)).toBe(expected);
  });

  it.each(V2_VECTORS)("V2 key of %s", (_, key, expected) => {
    expect(AnnotationKeys.v2Key(P, key)).toBe(expected);
  });

  it.each([
    ["/", "."],
    ["<", "_"],
    [">", "_"],
    ["create_fn/sub1", "create_fn.sub1"],
    ["fn/<lambda>", "fn._lambda_"],
  ])("safe name of %s is %s", (key, expected) => {
    expect(AnnotationKeys.safeName(key)).toBe(expected);
  });

  it.each([
    ["create_fn/sub1", ["kopf.zalando.org/create_fn.sub1"]],
    ["touch-dummy", ["kopf.zalando.org/touch-dummy"]],
    ["...", ["kopf.zalando.org/..."]],
  ] as const)("makeKeys(%s) with the default prefix", (key, expected) => {
    expect(AnnotationKeys.makeKeys({ prefix: "kopf.zalando.org", v1: true }, key)).toEqual(expected);
  });

  it("yields two distinct keys for '.'*64, V2 first", () => {
    const key = ".".repeat(64);
    const keys = AnnotationKeys.makeKeys({ prefix: "kopf.zalando.org", v1: true }, key);
    expect(keys).toEqual([
      AnnotationKeys.v2Key("kopf.zalando.org", key),
      AnnotationKeys.v1Key("kopf.zalando.org", key),
    ]);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("yields only the V2 key when V1 keys are off", () => {
    const key = ".".repeat(64);
    const keys = AnnotationKeys.makeKeys({ prefix: "kopf.zalando.org", v1: false }, key);
    expect(keys).toEqual([AnnotationKeys.v2Key("kopf.zalando.org", key)]);
  });

  it("forms the same keys on repeated calls, whatever was formed before (the keys are remembered)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("kopf.zalando.org", "kopf.dev", P),
        fc.boolean(),
        fc.string({ maxLength: 80 }),
        (prefix, v1, key) => {
          const expected = [AnnotationKeys.v2Key(prefix, key), AnnotationKeys.v1Key(prefix, key)];
          const unique = v1 && expected[0] !== expected[1] ? expected : [expected[0]];
          const first = AnnotationKeys.makeKeys({ prefix, v1 }, key);
          expect(first).toEqual(unique);
          expect(AnnotationKeys.makeKeys({ prefix, v1 }, key)).toEqual(first);
        },
      ),
    );
  });

  it.each([
    ["DRS", "ReplicaSet", [{ kind: "Deployment" }], "kopf.dev/xyz-ofDRS"],
    ["not-deployment", "ReplicaSet", [{ kind: "OtherOwner" }], "kopf.dev/xyz"],
    ["not-replicaset", "OtherKind", [{ kind: "Deployment" }], "kopf.dev/xyz"],
    ["no-owners", "ReplicaSet", undefined, "kopf.dev/xyz"],
    ["malformed-owners", "ReplicaSet", "Deployment", "kopf.dev/xyz"],
  ])("collision mark: %s", (_, kind, owners, expected) => {
    const body = { kind, metadata: owners === undefined ? {} : { ownerReferences: owners } };
    expect(AnnotationKeys.makeKeys({ prefix: "kopf.dev", v1: true }, "xyz", body)).toEqual([expected]);
  });

  it.each([
    ["one byte", "x", false],
    ["189 chars", "x".repeat(189), false],
    ["190 chars", "x".repeat(190), true],
  ])("prefix of %s warns: %s", (_, prefix, warns) => {
    const result = AnnotationKeys.checkPrefix(prefix);
    expect(Result.getOrThrow(result).warnings).toEqual(warns ? [AnnotationKeys.PREFIX_TOO_LONG_WARNING] : []);
  });

  it("rejects an empty prefix with Kopf's message", () => {
    const result = AnnotationKeys.checkPrefix("");
    expect(Result.isFailure(result)).toBe(true);
    if (Result.isFailure(result)) {
      expect(result.failure.reason).toBe("EmptyPrefix");
      expect(result.failure.message).toBe("Annotations storages must be prefixed.");
    }
  });

  it("measures lengths in code points, as Python does", () => {
    // 63 astral characters are 126 UTF-16 units but only 63 code points: not cut in V2.
    const key = "😀".repeat(63);
    expect(AnnotationKeys.v2Key("p", key)).toBe(`p/${key}`);
  });

  it("always keeps the name part within 63 code points (property)", () => {
    const prefix = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,60}[a-z0-9])?$/);
    fc.assert(
      fc.property(prefix, fc.string({ maxLength: 400 }), fc.boolean(), (pfx, key, v1) => {
        for (const full of AnnotationKeys.makeKeys({ prefix: pfx, v1 }, key)) {
          expect(full.startsWith(`${pfx}/`)).toBe(true);
          const name = full.slice(pfx.length + 1);
          expect(Array.from(name).length).toBeLessThanOrEqual(63);
          expect(name).not.toContain("/");
        }
        expect(Array.from(AnnotationKeys.v1Key(pfx, key)).length).toBeLessThanOrEqual(
          Math.max(63, pfx.length + 1 + 7),
        );
      }),
    );
  });

  it("hash suffixes use only the K8s-safe alphabet and never end with - or . (property)", () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        expect(AnnotationKeys.hashSuffix(key)).toMatch(/^-[A-Za-z0-9.-]*[A-Za-z0-9]$/);
      }),
    );
  });
});
