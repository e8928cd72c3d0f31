// The sharding hash space: FNV-1a 64 test vectors (the published ones, and a uid's UTF-8 text),
// the `shardSelector` expression written and parsed (start inclusive, end exclusive up to 2^64),
// and range arithmetic (normalize, subtract, intersect) checked against membership of samples.

import * as Result from "effect/Result";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ShardRange from "../src/ShardRange.ts";

describe("fnv1a64", () => {
  it.each([
    ["", 0xcbf29ce484222325n],
    ["a", 0xaf63dc4c8601ec8cn],
    ["foobar", 0x85944171f73967e8n],
    // Computed with Go's hash/fnv New64a over []byte(value), as kube-apiserver v1.36's
    // sharding.HashField does for object.metadata.uid and object.metadata.namespace.
    ["6f1c2a3e-9b8d-4c7e-a5f0-1d2e3f4a5b6c", 0xdb3c32181df90f6en],
    ["kube-system", 0xdf65c7bc1d82b35en],
    ["é-€-😀", 0xb94ec788ad573c22n],
  ])("%j", (text, hash) => {
    expect(ShardRange.fnv1a64(text)).toBe(hash);
  });

  it("hashes the UTF-8 bytes of the text", () => {
    // "é" is two bytes (0xc3 0xa9): the same as hashing those bytes one by one.
    let manual = 0xcbf29ce484222325n;
    for (const byte of [0xc3, 0xa9]) manual = ((manual ^ BigInt(byte)) * 0x100000001b3n) % (1n << 64n);
    expect(ShardRange.fnv1a64("é")).toBe(manual);
    const sample = "uid-é-€-😀";
    let bytes = 0xcbf29ce484222325n;
    for (const byte of new TextEncoder().encode(sample))
      bytes = ((bytes ^ BigInt(byte)) * 0x100000001b3n) % (1n << 64n);
    expect(ShardRange.fnv1a64(sample)).toBe(bytes);
  });
});

describe("selector", () => {
  it("writes the API server's shardRange terms, joined by ||", () => {
    expect(
      ShardRange.selector([
        { start: 1n << 63n, end: ShardRange.SPACE },
        { start: 0n, end: 1n << 62n },
      ]),
    ).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || " +
        "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
    );
    expect(ShardRange.selector([])).toBe("");
  });

  it("parses what it writes, and the documented padded forms", () => {
    const parsed = ShardRange.parse(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
    );
    expect(parsed).toEqual(
      Result.succeed({
        field: "object.metadata.uid",
        ranges: [
          { start: 0n, end: 1n << 63n },
          { start: 0xc000000000000000n, end: ShardRange.SPACE },
        ],
      }),
    );
  });

  it.each([
    ["shardRange(object.metadata.uid, 0x0000000000000000, 0x0000000000000001)", "Malformed"],
    ["shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", "Malformed"], // 16 digits required
    ["shardRange(object.metadata.uid, '0x0000000000000000', '0xC000000000000000')", "Malformed"], // lowercase
    ["shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000001')", "Malformed"],
    ["shardRange(object.metadata.uid, '0x0000000000000001', '0x0000000000000001')", "OutOfRange"],
    [
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001') || " +
        "shardRange(object.metadata.namespace, '0x0000000000000001', '0x0000000000000002')",
      "MixedFields",
    ],
  ])("rejects %s (%s)", (text, reason) => {
    const parsed = ShardRange.parse(text);
    expect(Result.isFailure(parsed) && parsed.failure.reason).toBe(reason);
  });
});

const hash = fc.bigInt({ min: 0n, max: ShardRange.SPACE - 1n });
const range = fc
  .tuple(hash, hash)
  .map(([a, b]) => (a <= b ? { start: a, end: b + 1n } : { start: b, end: a + 1n }));
const ranges = fc.array(range, { maxLength: 6 });
const samplesOf = (...sets: ReadonlyArray<ReadonlyArray<ShardRange.ShardRange>>) =>
  sets
    .flat()
    .flatMap((r) => [r.start - 1n, r.start, r.end - 1n, r.end])
    .filter((h) => h >= 0n && h < ShardRange.SPACE);

describe("range arithmetic", () => {
  it("normalize, subtract and intersect agree with membership", () => {
    fc.assert(
      fc.property(ranges, ranges, fc.array(hash, { maxLength: 10 }), (a, b, extra) => {
        for (const h of [...samplesOf(a, b), ...extra]) {
          const inA = ShardRange.contains(a, h);
          const inB = ShardRange.contains(b, h);
          expect(ShardRange.contains(ShardRange.normalize(a), h)).toBe(inA);
          expect(ShardRange.contains(ShardRange.subtract(a, b), h)).toBe(inA && !inB);
          expect(ShardRange.contains(ShardRange.intersect(a, b), h)).toBe(inA && inB);
        }
      }),
    );
  });
});
