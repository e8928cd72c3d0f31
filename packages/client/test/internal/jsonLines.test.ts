// Covers the JSON-lines splitter of watch bodies: any chunking of the same bytes gives the same
// values (property, with multi-byte characters and \r\n), blank lines are skipped, a last line
// without a newline is kept, a malformed line fails the stream with a TransportError after the
// values before it, a failing byte stream fails as it is, the lines of a received chunk come as one
// chunk, and watch-event lines: unknown types dropped with a warning, untyped values failing.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as Stream from "effect/Stream";
import fc from "fast-check";
import { lines, linesWith, values } from "../../src/internal/jsonLines.ts";
import { decodeEventLine } from "../../src/internal/watching.ts";
import type { WatchEvent } from "../../src/KubeApi.ts";
import { KubeApiError } from "../../src/KubeApiError.ts";

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

  it.effect("a malformed line fails the stream after the values before it in the same chunk", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = [];
      const error = yield* Effect.flip(
        Stream.runForEach(
          values(Stream.make(encoder.encode('{"a":1}\n{"b":2}\n{broken\n{"c":3}\n'))),
          (value) => Effect.sync(() => seen.push(value)),
        ),
      );
      assert.deepStrictEqual(seen, [{ a: 1 }, { b: 2 }]);
      assert.strictEqual(error.reason, "TransportError");
      assert.include(error.message, "Malformed JSON line");
    }),
  );

  it.effect("a failing byte stream fails with its own error, not with its unfinished line", () =>
    Effect.gen(function* () {
      const cut = KubeApiError.transport("connection reset");
      const error = yield* Effect.flip(
        Stream.runCollect(
          values(Stream.concat(Stream.make(encoder.encode('{"a":1}\n{"b":')), Stream.fail(cut))),
        ),
      );
      assert.strictEqual(error, cut);
    }),
  );

  it.effect("the lines of one received chunk come as one chunk of values", () =>
    Effect.gen(function* () {
      const chunks: Array<ReadonlyArray<unknown>> = [];
      yield* Stream.runForEachArray(
        values(
          Stream.rechunk(
            Stream.make(encoder.encode('{"a":1}\n{"b":2}\n{"c"'), encoder.encode(':3}\n{"d":4}\n')),
            1,
          ),
        ),
        (chunk) => Effect.sync(() => chunks.push(chunk)),
      );
      assert.deepStrictEqual(chunks, [
        [{ a: 1 }, { b: 2 }],
        [{ c: 3 }, { d: 4 }],
      ]);
    }),
  );

  it.effect("a handler's warnings are logged and its elements emitted", () =>
    Effect.gen(function* () {
      const logged: Array<unknown> = [];
      const logger = Logger.make(({ message }) => logged.push(message));
      const events = yield* Stream.runCollect(
        linesWith(
          Stream.make(
            encoder.encode(
              '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"WHATEVER","object":{}}\n{"type":"DELETED"}\n',
            ),
          ),
          decodeEventLine,
        ),
      ).pipe(Effect.provide(Logger.layer([logger])));
      assert.deepStrictEqual(events, [
        { type: "ADDED", object: { metadata: { name: "a" } } },
        { type: "DELETED", object: {} },
      ] satisfies ReadonlyArray<WatchEvent>);
      assert.deepStrictEqual(logged, [["Ignoring an unsupported watch event type: WHATEVER"]]);
    }),
  );

  it.effect("a watch line without a type fails the stream", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Stream.runCollect(linesWith(Stream.make(encoder.encode('{"object":{}}\n')), decodeEventLine)),
      );
      assert.strictEqual(error.reason, "TransportError");
      assert.include(error.message, "without a type");
    }),
  );
});
