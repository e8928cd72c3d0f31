// Covers fault rules: which requests a rule matches (verb, resource with subresources and
// wildcards, group, namespace, name, path prefix), validation of rules, failures consumed for
// exactly N matching requests in order, and latency slept on the TestClock.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import fc from "fast-check";
import type { ApiRequest, ApiResponse } from "../../src/api/Emulator.ts";
import { FaultInjector, matches } from "../../src/control/FaultInjector.ts";

const request = (method: string, target: string): ApiRequest => {
  const url = new URL(target, "http://x");
  return {
    method,
    path: url.pathname,
    query: url.searchParams,
    headers: {},
    body: undefined,
    user: { username: "u", groups: [] },
  };
};

const okResponse: ApiResponse = { _tag: "Complete", status: 200, headers: {}, body: new Uint8Array() };
const handle = () => Effect.succeed(okResponse);

describe("FaultInjector.matches", () => {
  const pod = request("GET", "/api/v1/namespaces/ns1/pods/p1");
  const status = request("PATCH", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/x/status");
  const watch = request("GET", "/api/v1/pods?watch=true");
  it.each([
    ["empty rule matches everything", {}, pod, true],
    ["verb get", { verb: "get" }, pod, true],
    ["verb GET (case-insensitive)", { verb: "GET" }, pod, true],
    ["verb list", { verb: "list" }, pod, false],
    ["verb watch", { verb: "watch" }, watch, true],
    ["resource pods", { resource: "pods" }, pod, true],
    ["resource pods on a subresource", { resource: "kopfexamples" }, status, false],
    ["resource with subresource", { resource: "kopfexamples/status" }, status, true],
    ["resource any subresource", { resource: "kopfexamples/*" }, status, true],
    ["resource any subresource, main resource", { resource: "pods/*" }, pod, false],
    ["resource wildcard", { resource: "*" }, status, true],
    ["group", { apiGroup: "kopf.dev" }, status, true],
    ["core group", { apiGroup: "" }, status, false],
    ["namespace", { namespace: "ns1" }, pod, true],
    ["other namespace", { namespace: "ns2" }, pod, false],
    ["name", { name: "p1" }, pod, true],
    ["path prefix", { path: "/api/v1/namespaces/ns1" }, pod, true],
    ["other path prefix", { path: "/apis" }, pod, false],
    ["resource rule on a non-resource path", { resource: "pods" }, request("GET", "/version"), false],
    ["verb rule on a non-resource path", { verb: "get" }, request("GET", "/version"), true],
  ] as const)("%s", (_, rule, req, expected) => {
    assert.strictEqual(matches(rule, req), expected);
  });
});

const run = <A, E>(effect: Effect.Effect<A, E, FaultInjector>) =>
  effect.pipe(Effect.provide(FaultInjector.layer));

describe("FaultInjector", () => {
  it.effect("fails exactly the next N matching requests, then lets them through", () =>
    run(
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        yield* faults.injectFailure({ status: 500, verb: "patch", times: 2 });
        const statuses: Array<number> = [];
        for (const method of ["GET", "PATCH", "GET", "PATCH", "PATCH"]) {
          const response = yield* faults.around(request(method, "/api/v1/namespaces/a/configmaps/c"), handle);
          statuses.push(response.status);
        }
        assert.deepStrictEqual(statuses, [200, 500, 200, 500, 200]);
        assert.deepStrictEqual(yield* faults.pending, { failures: [], latencies: [] });
      }),
    ),
  );

  it.effect("applies rules in the order they were armed", () =>
    run(
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        yield* faults.injectFailure({ status: 409 });
        yield* faults.injectFailure({ status: 429, retryAfterSeconds: 2 });
        const first = yield* faults.around(request("GET", "/api/v1/pods"), handle);
        const second = yield* faults.around(request("GET", "/api/v1/pods"), handle);
        assert.strictEqual(first.status, 409);
        assert.strictEqual(second.status, 429);
        assert.strictEqual(second.headers["retry-after"], "2");
        const body = JSON.parse(new TextDecoder().decode((second as { body: Uint8Array }).body));
        assert.strictEqual(body.reason, "TooManyRequests");
        assert.deepStrictEqual(body.details, { retryAfterSeconds: 2 });
      }),
    ),
  );

  it.effect.each([
    [{ status: 200 }, "status"],
    [{ status: 600 }, "status"],
    [{ status: 500, times: 0 }, "times"],
    [{ status: 500, retryAfterSeconds: -1 }, "retryAfterSeconds"],
    [{ status: "500" }, "status"],
  ] as const)("rejects the invalid failure rule %j", ([rule, field]) =>
    run(
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        const error = yield* Effect.flip(faults.injectFailure(rule as never));
        assert.strictEqual(error.reason, "InvalidRule");
        assert.include(error.message, field);
      }),
    ),
  );

  it.effect("delays matching requests on the Clock", () =>
    run(
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        yield* faults.addLatency({ delayMillis: 5000, verb: "list", times: 1 });
        const fiber = yield* Effect.forkChild(faults.around(request("GET", "/api/v1/pods"), handle));
        yield* TestClock.adjust("4999 millis");
        assert.isUndefined(fiber.pollUnsafe());
        yield* TestClock.adjust("1 millis");
        const response = yield* Fiber.join(fiber);
        assert.strictEqual(response.status, 200);
        // used up: the next list is immediate
        const next = yield* faults.around(request("GET", "/api/v1/pods"), handle);
        assert.strictEqual(next.status, 200);
      }),
    ),
  );

  it.effect("clear disarms everything", () =>
    run(
      Effect.gen(function* () {
        const faults = yield* FaultInjector;
        yield* faults.injectFailure({ status: 500, times: 5 });
        yield* faults.addLatency({ delayMillis: 10 });
        assert.strictEqual((yield* faults.pending).failures.length, 1);
        assert.deepStrictEqual((yield* faults.pending).latencies[0]?.remaining, null);
        yield* faults.clear;
        assert.strictEqual((yield* faults.around(request("GET", "/api/v1/pods"), handle)).status, 200);
      }),
    ),
  );

  it("a rule armed for N requests fails exactly N of any sequence of matching requests", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 12 }), (times, requests) =>
        Effect.runPromise(
          run(
            Effect.gen(function* () {
              const faults = yield* FaultInjector;
              yield* faults.injectFailure({ status: 503, times });
              let failed = 0;
              for (let i = 0; i < requests; i++) {
                if ((yield* faults.around(request("GET", "/api/v1/pods"), handle)).status === 503) failed++;
              }
              assert.strictEqual(failed, Math.min(times, requests));
            }),
          ),
        ),
      ),
    );
  });
});
