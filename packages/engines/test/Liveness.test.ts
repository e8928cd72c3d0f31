/**
 * The health endpoint (docs/behaviour/operator.md#liveness-endpoint): URL parsing (http only, defaults), answering the configured
 * path only, probe results as JSON, 500 at once on a probe failing in any way (not cached); end
 * to end over real HTTP with the operator on the emulator: nothing listens before the startup
 * handlers are done, results are cached for 10 s.
 */
import { createServer } from "node:net";
import { assert, describe, it } from "@effect/vitest";
import { PermanentError, Registry, TemporaryError } from "@kopf/registry";
import { Probes } from "@kopf/runtime";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Result from "effect/Result";
import * as Liveness from "../src/Liveness.ts";
import * as Operating from "../src/Operating.ts";
import * as H from "./fixtures/Harness.ts";

describe("parseEndpoint", () => {
  it.each([
    ["http://0.0.0.0:8080/healthz", { host: "0.0.0.0", port: 8080, path: "/healthz" }],
    ["http://localhost/", { host: "localhost", port: 80, path: "/" }],
    ["http://example.com", { host: "example.com", port: 80, path: "/" }],
    ["http://[::1]:9000/h", { host: "::1", port: 9000, path: "/h" }],
  ])("%s ⇒ %j", (url, expected) => {
    assert.deepStrictEqual(Result.getOrThrow(Liveness.parseEndpoint(url)), expected);
  });

  it.each([
    ["https://localhost:8080/healthz", "UnsupportedScheme"],
    ["tcp://localhost:8080", "UnsupportedScheme"],
    ["not a url", "InvalidUrl"],
  ])("%s ⇒ %s", (url, reason) => {
    const parsed = Liveness.parseEndpoint(url);
    assert.isTrue(Result.isFailure(parsed) && parsed.failure.reason === reason);
  });
});

describe("respond", () => {
  const endpoint = { host: "localhost", port: 80, path: "/healthz" };
  it.effect.each([
    ["GET", "/healthz", Effect.succeed({ a: 1 }), { status: 200, body: '{"a":1}' }],
    ["GET", "/healthz?x=1", Effect.succeed({}), { status: 200, body: "{}" }],
    ["GET", "/other", Effect.succeed({}), { status: 404, body: "Not Found" }],
    ["POST", "/healthz", Effect.succeed({}), { status: 405, body: "Method Not Allowed" }],
    ["GET", "/healthz", Effect.fail({ message: "probe failed" }), { status: 500, body: "probe failed" }],
  ] as const)("%s %s", ([method, path, results, expected]) =>
    Effect.map(Liveness.respond({ endpoint, results, method, path }), (response) =>
      assert.deepStrictEqual(response, expected),
    ),
  );

  it.effect.each([
    ["leader", Effect.succeed({}), { status: 200, body: "{}", headers: { "x-kopf-role": "leader" } }],
    [
      "standby",
      Effect.fail({ message: "x" }),
      { status: 500, body: "x", headers: { "x-kopf-role": "standby" } },
    ],
  ] as const)("reports the role %s of a scaled-out replica", ([role, results, expected]) =>
    Effect.map(Liveness.respond({ endpoint, results, method: "GET", path: "/healthz", role }), (response) =>
      assert.deepStrictEqual(response, expected),
    ),
  );
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });

const get = (url: string) =>
  Effect.promise(() =>
    fetch(url).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      () => ({ status: 0, body: "refused" }),
    ),
  );

describe("the endpoint of a running operator", () => {
  it.live("answers only after startup, with probe results cached, and stops with the operator", () =>
    H.run(() =>
      Effect.gen(function* () {
        const port = yield* Effect.promise(freePort);
        const url = `http://127.0.0.1:${port}/healthz`;
        const started = yield* Deferred.make<void>();
        let probes = 0;
        const registry = Registry.make();
        registry.on.startup(function gate() {
          return Deferred.await(started);
        });
        registry.on.probe(function counter() {
          probes += 1;
          return probes;
        });
        const fiber = yield* Effect.forkScoped(
          Operating.run({ registry, namespaces: ["ns1"], standalone: true, livenessEndpoint: url }),
        );
        yield* Effect.sleep("200 millis");
        assert.strictEqual((yield* get(url)).status, 0);
        yield* Deferred.succeed(started, undefined);
        let first = yield* get(url);
        for (let i = 0; i < 50 && first.status === 0; i++) {
          yield* Effect.sleep("50 millis");
          first = yield* get(url);
        }
        assert.deepStrictEqual(first, { status: 200, body: '{"counter":1}' });
        assert.deepStrictEqual(yield* get(url), { status: 200, body: '{"counter":1}' });
        assert.strictEqual((yield* get(`http://127.0.0.1:${port}/other`)).status, 404);
        yield* Fiber.interrupt(fiber);
        assert.strictEqual((yield* get(url)).status, 0);
      }),
    ),
  );

  it.live.each([
    ["an arbitrary error", () => new Error("unhealthy")],
    ["a permanent error", () => new PermanentError("unhealthy")],
    ["a temporary error", () => new TemporaryError("unhealthy", { delay: 1 })],
  ] as const)("a probe failing with %s answers 500 at once, and is not cached", ([, makeError]) =>
    Effect.gen(function* () {
      const registry = Registry.make();
      let calls = 0;
      registry.on.probe(function flaky() {
        calls += 1;
        if (calls === 1) throw makeError();
        return "ok";
      });
      const prober = yield* Probes.make(registry);
      const endpoint = { host: "localhost", port: 80, path: "/" };
      // A probing that waited for a retry (60 s by default) would time out.
      const failed = yield* Liveness.respond({ endpoint, results: prober.results, method: "GET", path: "/" });
      assert.strictEqual(failed.status, 500);
      assert.strictEqual(calls, 1);
      const ok = yield* Liveness.respond({ endpoint, results: prober.results, method: "GET", path: "/" });
      assert.deepStrictEqual(ok, { status: 200, body: '{"flaky":"ok"}' });
    }).pipe(Effect.timeout("2 seconds")),
  );
});
