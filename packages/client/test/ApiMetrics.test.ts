/**
 * The client's metrics and spans: the verb and resource of request paths (a table), the span
 * attributes of an attempt (a table), and through `KubeApi` with a scripted transport in
 * virtual time: every attempt counted by its status code and timed, retries counted by reason,
 * 429s counted, and nothing else (the counts must equal the transport's requests).
 */
import { assert, describe, it } from "@effect/vitest";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Metric from "effect/Metric";
import * as Option from "effect/Option";
import * as References from "effect/References";
import * as Result from "effect/Result";
import { TestClock } from "effect/testing";
import * as ApiMetrics from "../src/ApiMetrics.ts";
import * as ApiTracing from "../src/ApiTracing.ts";
import { KubeApi } from "../src/KubeApi.ts";
import type { Method } from "../src/KubeTransport.ts";
import { CredentialsVault } from "../src/Vault.ts";
import { json, scripted, status } from "./fixtures/scriptedTransport.ts";

describe("labelsOf", () => {
  it.each([
    ["GET", "/api/v1/namespaces/ns1/pods/p1", "get", "pods.v1"],
    ["GET", "/api/v1/namespaces/ns1/pods?labelSelector=a%3Db", "list", "pods.v1"],
    ["GET", "/api/v1/pods?watch=true&resourceVersion=5", "watch", "pods.v1"],
    ["GET", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples?watch=1", "watch", "kopfexamples.v1.kopf.dev"],
    ["POST", "/api/v1/namespaces/ns1/events", "create", "events.v1"],
    [
      "PATCH",
      "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/kex1/status",
      "patch",
      "kopfexamples.v1.kopf.dev/status",
    ],
    ["PUT", "/apis/apps/v1/namespaces/ns1/deployments/d1/scale", "update", "deployments.v1.apps/scale"],
    ["DELETE", "/apis/kopf.dev/v1/clusterkopfpeerings/default", "delete", "clusterkopfpeerings.v1.kopf.dev"],
    ["GET", "/api/v1/namespaces", "list", "namespaces.v1"],
    ["GET", "/api/v1/namespaces/ns1", "get", "namespaces.v1"],
    ["GET", "/api", "discover", ""],
    ["GET", "/apis/kopf.dev/v1", "discover", ""],
    ["GET", "/version", "discover", ""],
    ["POST", "/apis", "other", ""],
  ] as const)("%s %s ⇒ %s %s", (method: Method, path, verb, resource) => {
    assert.deepStrictEqual(ApiMetrics.labelsOf(method, path), { verb, resource });
  });
});

describe("ApiTracing.attributesOf", () => {
  it("follows the HTTP semantic conventions", () => {
    const labels = { verb: "list", resource: "pods.v1" };
    assert.deepStrictEqual(
      ApiTracing.attributesOf({
        method: "GET",
        server: "https://k8s.local:6443/",
        path: "/api/v1/pods",
        labels,
        resends: 0,
      }),
      {
        "http.request.method": "GET",
        "url.full": "https://k8s.local:6443/api/v1/pods",
        "server.address": "k8s.local",
        "server.port": 6443,
        "kopf.api.verb": "list",
        "kopf.resource": "pods.v1",
      },
    );
    const retried = ApiTracing.attributesOf({
      method: "GET",
      server: "https://[::1]",
      path: "/api",
      labels,
      resends: 2,
    });
    assert.strictEqual(retried["server.address"], "::1");
    assert.strictEqual(retried["server.port"], 443);
    assert.strictEqual(retried["http.request.resend_count"], 2);
  });
});

describe("ApiTracing.traced", () => {
  const attempt = {
    method: "GET" as const,
    server: "https://k8s.local:6443",
    path: "/api/v1/pods",
    labels: { verb: "list", resource: "pods.v1" },
    resends: 0,
  };
  // The span the request runs in (its name, and the status code recorded when it ended).
  const spanOf = ApiTracing.traced(
    attempt,
    Effect.map(Effect.option(Effect.currentSpan), (span) => ({ status: 200, span })),
  );

  it.effect("runs each attempt in a client span that records the status code", () =>
    Effect.gen(function* () {
      const { span } = yield* spanOf;
      assert.isTrue(Option.isSome(span));
      if (Option.isNone(span)) return;
      assert.strictEqual(span.value.name, "GET");
      assert.strictEqual(span.value.kind, "client");
      assert.strictEqual(span.value.attributes.get("url.full"), "https://k8s.local:6443/api/v1/pods");
      assert.strictEqual(span.value.attributes.get("http.response.status_code"), 200);
    }),
  );

  it.effect("makes no span when Effect's tracer is off", () =>
    Effect.gen(function* () {
      const { span } = yield* spanOf;
      assert.isTrue(Option.isNone(span));
    }).pipe(Effect.provideService(References.TracerEnabled, false)),
  );
});

const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true });

const count = (
  metric: Metric.Metric<number, { readonly count: number }>,
  attributes: Record<string, string>,
) => Effect.map(Metric.value(Metric.withAttributes(metric, attributes)), (state) => state.count);

describe("the metrics of requests", () => {
  it.effect("count every attempt by code, each retry by reason, and 429s", () =>
    Effect.gen(function* () {
      const answers = [
        status(503),
        status(429, "slow down", { "retry-after": "1" }),
        json(200, { ok: true }),
      ];
      const transport = scripted((_, index) => answers[index] ?? status(500));
      const layer = KubeApi.layer().pipe(
        Layer.provide(
          Layer.mergeAll(
            transport.layer,
            CredentialsVault.layer({
              initial: { main: { server: "https://k8s:6443", token: "t", priority: 0, trustEnv: false } },
            }),
          ),
        ),
        Layer.fresh,
      );
      const settings = Result.getOrThrow(Settings.make({ networking: { errorBackoffs: [1, 1, 1] } }));
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(KubeApi, (api) => api.get(pods, { namespace: "n", name: "p" })).pipe(
          Effect.provide(layer),
          Effect.provideService(OperatorSettings, settings),
        ),
      );
      for (let i = 0; i < 50; i++) yield* TestClock.adjust("100 millis");
      assert.deepStrictEqual(yield* Fiber.join(fiber), { ok: true });

      const labels = { verb: "get", resource: "pods.v1" };
      assert.strictEqual(transport.requests.length, 3);
      assert.deepStrictEqual(
        [
          yield* count(ApiMetrics.requests, { ...labels, code: "503" }),
          yield* count(ApiMetrics.requests, { ...labels, code: "429" }),
          yield* count(ApiMetrics.requests, { ...labels, code: "200" }),
        ],
        [1, 1, 1],
      );
      assert.strictEqual(yield* count(ApiMetrics.latency, labels), 3);
      assert.deepStrictEqual(
        [
          yield* count(ApiMetrics.retries, { ...labels, reason: "ServerError" }),
          yield* count(ApiMetrics.retries, { ...labels, reason: "TooManyRequests" }),
        ],
        [1, 1],
      );
      assert.strictEqual(yield* count(ApiMetrics.throttled, labels), 1);
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
  );
});
