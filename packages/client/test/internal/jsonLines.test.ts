// Covers the JSON-lines splitter of watch bodies: any chunking of the same bytes gives the same
// values (property, with multi-byte characters and \r\n), blank lines are skipped, a last line
// without a newline is kept, and a malformed line fails the stream with a TransportError.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import fc from "fast-check";
import { lines, values } from "../../src/internal/jsonLines.ts";

const encoder = new TextEncoder();

const chunked = (bytes: Uint8Array, cuts: ReadonlyArray<number>): ReadonlyArray<Uint8Array> => {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Array<Uint8Array> = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) chunks.push(bytes.subarray(start, point));
    start = Math.max(start, point);
  }
  return chunks;
};

const collect = (chunks: ReadonlyArray<Uint8Array>) =>
  Effect.runSync(Stream.runCollect(values(Stream.fromIterable(chunks))));

describe("JSON lines", () => {
  it("any chunking of the same body gives the same values", () => {
    const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => v !== null);
    fc.assert(
      fc.property(
        fc.array(json, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (items, cuts, crlf) => {
          const text =
            items.map((item) => JSON.stringify({ v: item, s: "ü€𝄞" })).join(crlf ? "\r\n" : "\n") + "\n";
          const result = collect(chunked(encoder.encode(text), cuts));
          assert.deepStrictEqual(
            result,
            items.map((item) => JSON.parse(JSON.stringify({ v: item, s: "ü€𝄞" }))),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it.effect("skips blank lines and keeps a last line without a newline", () =>
    Effect.gen(function* () {
      const result = yield* Stream.runCollect(
        lines(Stream.fromIterable([encoder.encode('\n{"a":1}\n\n  \n{"b"'), encoder.encode(":2}")])),
      );
      assert.deepStrictEqual(result, ['{"a":1}', '{"b":2}']);
    }),
  );

  it.effect("a malformed line fails with a TransportError naming its size", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Stream.runCollect(values(Stream.make(encoder.encode('{"ok":true}\n{broken\n')))),
      );
      assert.strictEqual(error.reason, "TransportError");
      assert.include(error.message, "7 characters");
    }),
  );
});
