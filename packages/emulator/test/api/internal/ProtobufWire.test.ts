// Covers the protobuf wire helpers: varints (multi-byte, 64-bit, truncated), bounded takes, and
// Go's text forms of times (RFC 3339, with microseconds) and durations.
import { assert, describe, it } from "@effect/vitest";
import { goDuration, Reader, rfc3339 } from "../../../src/api/internal/ProtobufWire.ts";

describe("Reader", () => {
  it.each([
    [[0x00], 0n],
    [[0x96, 0x01], 150n],
    [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], 2n ** 64n - 1n],
  ])("reads the varint %j", (bytes, expected) => {
    assert.strictEqual(new Reader(Uint8Array.from(bytes)).varint(), expected);
  });

  it("answers undefined for truncated varints and takes past the end", () => {
    assert.isUndefined(new Reader(Uint8Array.from([0x96])).varint());
    const reader = new Reader(Uint8Array.from([1, 2, 3]));
    assert.deepStrictEqual([...(reader.take(2) ?? [])], [1, 2]);
    assert.isUndefined(reader.take(2));
  });
});

describe("Go text forms", () => {
  it.each([
    [0, undefined, "1970-01-01T00:00:00Z"],
    [1764489600, undefined, "2025-11-30T08:00:00Z"],
    [1764489600, { nanos: 123456789, digits: 6 }, "2025-11-30T08:00:00.123456Z"],
  ] as const)("rfc3339(%d, %j) = %s", (seconds, fraction, expected) => {
    assert.strictEqual(rfc3339(seconds, fraction), expected);
  });

  it.each([
    [0, "0s"],
    [1.5e9, "1.5s"],
    [90e9, "1m30s"],
    [3600e9, "1h0m0s"],
    [-2e9, "-2s"],
  ])("goDuration(%d) = %s", (nanos, expected) => {
    assert.strictEqual(goDuration(nanos), expected);
  });
});
