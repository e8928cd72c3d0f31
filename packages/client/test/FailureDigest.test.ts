// Covers the aggregation of repeated request failures: the pure decisions (tables), the request
// kinds, and the log lines of a client with 210 objects' patches in flight during a 15-second
// outage (virtual time): a bounded number of lines at error level, every attempt still at debug
// level, and every request succeeding once the server is back.
import { assert, describe, it } from "@effect/vitest";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { TestClock } from "effect/testing";
import { type Entry, make, type Output, onFailure, onSuccess, requestKind } from "../src/FailureDigest.ts";
import { KubeApi } from "../src/KubeApi.ts";
import { CredentialsVault } from "../src/Vault.ts";
import { json, scripted, status } from "./fixtures/scriptedTransport.ts";

describe("decisions", () => {
  const print: Output = { _tag: "Print" };
  const quiet: Output = { _tag: "Quiet" };
  it.each([
    ["the first failure prints", undefined, 0, [{ since: 0, suppressed: 0 }, print]],
    [
      "later ones within the interval are counted",
      { since: 0, suppressed: 2 },
      9_999,
      [{ since: 0, suppressed: 3 }, quiet],
    ],
    [
      "the first after the interval summarises",
      { since: 0, suppressed: 4 },
      12_400,
      [
        { since: 12_400, suppressed: 0 },
        { _tag: "Summary", count: 5, seconds: 12 },
      ],
    ],
    [
      "a lone failure after a quiet interval prints",
      { since: 0, suppressed: 0 },
      10_000,
      [{ since: 10_000, suppressed: 0 }, print],
    ],
  ] as const)("%s", (_, entry, now, expected) => {
    assert.deepStrictEqual(onFailure(entry as Entry | undefined, now, 10_000), expected);
  });

  it.each([
    [undefined, { _tag: "Quiet" }],
    [{ since: 0, suppressed: 0 }, { _tag: "Quiet" }],
    [
      { since: 0, suppressed: 7 },
      { _tag: "Recovered", count: 7 },
    ],
  ] as const)("success after %j", (entry, expected) => {
    assert.deepStrictEqual(onSuccess(entry), expected);
  });

  it.each([
    ["PATCH", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/ex1", "PATCH kopfexamples.kopf.dev"],
    [
      "PATCH",
      "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/ex1/status",
      "PATCH kopfexamples.kopf.dev/status",
    ],
    ["GET", "/api/v1/pods?watch=true", "GET pods"],
    ["GET", "/api/v1/namespaces/default/pods", "GET pods"],
    ["GET", "/api/v1/namespaces/default", "GET namespaces"],
    ["POST", "/api/v1/namespaces/default/events", "POST events"],
    ["GET", "/apis/apps/v1/deployments", "GET deployments.apps"],
    ["GET", "/apis", "GET apis"],
    ["GET", "/version", "GET version"],
  ] as const)("%s %s is %s", (method, path, kind) => {
    assert.strictEqual(requestKind(method, path), kind);
  });
});

describe("a digest's successes", () => {
  it.effect("have nothing to run unless they end failures left unprinted, and end them once", () =>
    Effect.gen(function* () {
      const digest = make(10);
      assert.strictEqual(digest.succeededNow("GET pods"), undefined);
      // The first failure is printed; the second, within the interval, is not.
      yield* digest.failed("GET pods", "attempt #1 failed");
      yield* digest.failed("GET pods", "attempt #2 failed");
      const lines: Array<string> = [];
      const logger = Logger.make(({ message }) => {
        lines.push(String(Array.isArray(message) ? message[0] : message));
      });
      const recovered = digest.succeededNow("GET pods");
      assert.notStrictEqual(recovered, undefined);
      yield* (recovered ?? Effect.void).pipe(
        Effect.provide(Logger.layer([logger], { mergeWithExisting: false })),
      );
      assert.deepStrictEqual(lines, ["GET pods succeeds again after 1 more failed attempts."]);
      assert.strictEqual(digest.succeededNow("GET pods"), undefined);
      // A lone printed failure leaves nothing to say on success either.
      yield* digest.failed("GET pods", "attempt #1 failed");
      assert.strictEqual(digest.succeededNow("GET pods"), undefined);
    }),
  );
});

describe("a client during an outage", () => {
  const widgets = Resource.make({
    group: "kopf.dev",
    version: "v1",
    plural: "kopfexamples",
    namespaced: true,
  });
  const OBJECTS = 210;

  it.effect("210 objects retrying through 15 seconds of 503s: few error lines, every attempt at debug", () =>
    Effect.gen(function* () {
      let down = true;
      const transport = scripted(() =>
        down ? status(503, "the server is paused") : json(200, { kind: "KopfExample" }),
      );
      const lines: Array<{ level: string; message: string }> = [];
      const logger = Logger.make(({ logLevel, message }) => {
        lines.push({ level: logLevel, message: String(Array.isArray(message) ? message[0] : message) });
      });
      const layer = KubeApi.layer().pipe(
        Layer.provide(
          Layer.mergeAll(
            transport.layer,
            CredentialsVault.layerStatic({
              main: { server: "https://127.0.0.1:1", token: "t", priority: 0, trustEnv: false },
            }),
          ),
        ),
      );
      const patches = Effect.gen(function* () {
        const api = yield* KubeApi;
        return yield* Effect.forEach(
          Array.from({ length: OBJECTS }, (_, i) => `ex${i}`),
          (name) => api.patch(widgets, { namespace: "ns", name }, { type: "merge", body: { metadata: {} } }),
          { concurrency: "unbounded" },
        );
      }).pipe(
        Effect.provide(layer),
        Effect.provide(Logger.layer([logger], { mergeWithExisting: false })),
        Effect.provideService(References.MinimumLogLevel, "All"),
      );
      const fiber = yield* Effect.forkChild(patches);
      for (let i = 0; i < 150; i++) yield* TestClock.adjust("100 millis");
      down = false;
      for (let i = 0; i < 250; i++) yield* TestClock.adjust("100 millis");
      const results = yield* Fiber.join(fiber);

      const shown = lines.filter((line) => line.level !== "Debug");
      const attempts = lines.filter((line) => line.message.includes("failed; will retry"));
      assert.strictEqual(results.length, OBJECTS);
      // Without aggregation: one line per failed attempt (6 per object: at 0, 1, 2, 4, 7, 12 s).
      assert.strictEqual(attempts.length, OBJECTS * 6);
      // With it: the first, a summary after 10 s, and the recovery.
      assert.deepStrictEqual(
        shown.map((line) => [
          line.level,
          line.message.replace(/ex\d+/, "exN").replace(/#\d+/, "#N").replace(/^\d+/, "N"),
        ]),
        [
          [
            "Error",
            "Request attempt #N/9 failed; will retry: PATCH /apis/kopf.dev/v1/namespaces/ns/kopfexamples/exN -> ServerError 503: the server is paused",
          ],
          [
            "Error",
            "N request attempts of PATCH kopfexamples.kopf.dev failed in the last 12s and are retried; the latest: Request attempt #N/9 failed; will retry: PATCH /apis/kopf.dev/v1/namespaces/ns/kopfexamples/exN -> ServerError 503: the server is paused",
          ],
          ["Info", "PATCH kopfexamples.kopf.dev succeeds again after 209 more failed attempts."],
        ],
      );
    }),
  );
});
