// Measures what decoding a watch body costs per event (not a timed test): 30,000 `MODIFIED`
// events of a custom resource as an operator's patches leave it (~700 bytes each) are split,
// parsed and decoded by the client's watch-body decoding, delivered in chunks of 16 KiB (a burst
// read at once) and of 1 KiB (events trickling in), and the process's CPU time per event is
// printed, the least of BENCH_ROUNDS (default 5) rounds.
//
//   node --conditions=@kopf/source packages/client/bench/watchDecoding.bench.ts
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { linesWith } from "../src/internal/jsonLines.ts";
import { decodeEventLine } from "../src/internal/watching.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30_000);

const object = (i: number) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: `obj-${i}`,
    namespace: "bench",
    uid: "8a1f2d9c-3b4e-4f5a-9c8d-7e6f5a4b3c2d",
    resourceVersion: String(1000 + i),
    generation: 1,
    creationTimestamp: "2026-12-03T19:00:00Z",
    annotations: {
      "kopf.zalando.org/last-handled-configuration": JSON.stringify({ spec: { field: "value" } }),
    },
    managedFields: [
      {
        manager: "kopf",
        operation: "Update",
        apiVersion: "kopf.dev/v1",
        time: "2026-12-03T19:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:annotations": { "f:kopf.zalando.org/last-handled-configuration": {} } },
        },
      },
    ],
  },
  spec: { field: "value", items: [1, 2, 3] },
  status: { create_fn: { message: "hello" } },
});

const body = new TextEncoder().encode(
  `${Array.from({ length: EVENTS }, (_, i) => JSON.stringify({ type: "MODIFIED", object: object(i) })).join("\n")}\n`,
);

const chunksOf = (size: number): ReadonlyArray<Uint8Array> => {
  const chunks: Array<Uint8Array> = [];
  for (let offset = 0; offset < body.length; offset += size)
    chunks.push(body.subarray(offset, offset + size));
  return chunks;
};

const round = (chunks: ReadonlyArray<Uint8Array>): number => {
  let events = 0;
  const before = process.cpuUsage();
  Effect.runSync(
    Stream.runForEachArray(linesWith(Stream.fromIterable(chunks), decodeEventLine), (array) =>
      Effect.sync(() => {
        events += array.length;
      }),
    ),
  );
  const used = process.cpuUsage(before);
  if (events !== EVENTS) throw new Error(`decoded ${events} events of ${EVENTS}`);
  return (used.user + used.system) / events;
};

console.log(`${EVENTS} events of ~${Math.round(body.length / EVENTS)} bytes, least of ${ROUNDS} rounds:`);
for (const size of [16_384, 1_024]) {
  const chunks = chunksOf(size);
  const least = Math.min(...Array.from({ length: ROUNDS }, () => round(chunks)));
  console.log(`  chunks of ${size} bytes: ${least.toFixed(2)} µs of CPU per event`);
}
