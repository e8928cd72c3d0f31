// Covers both live transports (Node.js's own client, the default, and undici, which serves
// proxied credentials) against a local node:http server on 127.0.0.1: keep-alive reuse (one
// connection for many requests), headers sent (auth, user agent), error statuses and bodies,
// streamed watch bodies read as they arrive and closed when the consumer stops, a refused watch
// whose body is never read closed without an uncaught error, bursts of requests bounded to their
// own pool's connections, connection refused as a TransportError, and the request timeout (real
// time).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import { KubeApi } from "../../src/KubeApi.ts";
import { KubeTransport } from "../../src/KubeTransport.ts";
import * as NodeTransport from "../../src/live/NodeTransport.ts";
import * as UndiciTransport from "../../src/live/UndiciTransport.ts";
import { CredentialsVault } from "../../src/Vault.ts";

let server: Server;
let base = "";
let connections = 0;
const seen: Array<IncomingMessage> = [];
const watchClosed: Array<boolean> = [];

const handler = (request: IncomingMessage, response: ServerResponse) => {
  seen.push(request);
  const url = new URL(request.url ?? "/", "http://x");
  if (url.pathname === "/api/v1/namespaces/forbidden/pods") {
    response.writeHead(403, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ kind: "Status", code: 403, reason: "Forbidden", message: "pods is forbidden" }),
    );
    return;
  }
  if (url.searchParams.get("watch") === "true") {
    response.writeHead(200, { "content-type": "application/json" });
    let n = 0;
    const timer = setInterval(() => {
      n++;
      response.write(
        `${JSON.stringify({ type: "ADDED", object: { metadata: { name: `o${n}`, resourceVersion: String(n) } } })}\n`,
      );
    }, 5);
    response.on("close", () => {
      clearInterval(timer);
      watchClosed.push(true);
    });
    return;
  }
  if (url.pathname === "/api/v1/namespaces/ns/pods/slow") return; // never answers
  if (request.method !== "GET") {
    // Echoes the body it read and how it was framed.
    const chunks: Array<Buffer> = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          method: request.method,
          length: request.headers["content-length"] ?? null,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    return;
  }
  if (url.pathname === "/api/v1/namespaces/ns/pods/missing") {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: 'pods "missing" not found' }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ kind: "Pod", metadata: { name: url.pathname.split("/").pop() } }));
};

beforeAll(async () => {
  server = createServer({ keepAlive: true }, handler);
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true });

const TRANSPORTS = [
  ["node:http", NodeTransport],
  ["undici", UndiciTransport],
] as const;
type Transport = (typeof TRANSPORTS)[number][1];

const live = (transport: Transport, server: string) =>
  KubeApi.layer().pipe(
    Layer.provide(
      Layer.mergeAll(
        transport.layer(),
        CredentialsVault.layerStatic({ t: { server, token: "secret", priority: 0, trustEnv: false } }),
      ),
    ),
    Layer.fresh,
  );

const suite = (transport: Transport) => {
  const withApi = <A, E>(body: (api: KubeApi["Service"]) => Effect.Effect<A, E>, target = base) =>
    Effect.flatMap(KubeApi, body).pipe(Effect.provide(live(transport, target)));

  const requestWith = (maxPools: number, infos: ReadonlyArray<{ insecure: boolean }>) =>
    Effect.gen(function* () {
      const transport = yield* KubeTransport;
      for (const { insecure } of infos) {
        const response = yield* transport.request({
          method: "GET",
          path: "/api/v1/namespaces/ns/pods/x",
          headers: {},
          connection: { server: base, insecure, priority: 0, trustEnv: false },
        });
        assert.strictEqual(response.status, 200);
      }
    }).pipe(Effect.provide(transport.layer({ maxPools })));

  describe("live transport over HTTP/1.1", () => {
    it.live("keeps one pool per TLS identity, closing the least recently used beyond maxPools", () =>
      Effect.gen(function* () {
        const sequence = [{ insecure: false }, { insecure: true }, { insecure: false }, { insecure: true }];
        let before = connections;
        yield* requestWith(16, sequence);
        assert.strictEqual(connections - before, 2);
        before = connections;
        yield* requestWith(1, sequence);
        assert.strictEqual(connections - before, 4);
      }),
    );

    it.live("reuses one keep-alive connection for many sequential requests", () =>
      Effect.gen(function* () {
        const before = connections;
        seen.length = 0;
        const names = yield* withApi((api) =>
          Effect.forEach([...Array(25).keys()], (i) => api.get(pods, { namespace: "ns", name: `p${i}` })),
        );
        assert.strictEqual(names.length, 25);
        assert.strictEqual(names[7]?.metadata?.name, "p7");
        assert.strictEqual(connections - before, 1);
        assert.strictEqual(seen[0]?.headers.authorization, "Bearer secret");
        assert.strictEqual(seen[0]?.headers["user-agent"], "kopf/0.1.0");
      }),
    );

    it.live("concurrent requests share a bounded set of connections across calls", () =>
      Effect.gen(function* () {
        const before = connections;
        yield* withApi((api) =>
          Effect.gen(function* () {
            for (let round = 0; round < 3; round++) {
              yield* Effect.forEach(
                [...Array(5).keys()],
                (i) => api.get(pods, { namespace: "ns", name: `c${i}` }),
                {
                  concurrency: 5,
                },
              );
            }
          }),
        );
        assert.isAtMost(connections - before, 5);
      }),
    );

    it.live(
      "a burst of requests shares requestConnections connections; open watch streams have their own",
      () =>
        Effect.gen(function* () {
          const transport = yield* KubeTransport;
          const connection = { server: base, insecure: false, priority: 0, trustEnv: false };
          const before = connections;
          // Two watch streams stay open (each holds a connection) while the burst runs.
          for (const _ of [1, 2]) {
            const watch = yield* transport.stream({
              method: "GET",
              path: "/api/v1/namespaces/ns/pods?watch=true",
              headers: {},
              connection,
            });
            assert.strictEqual(watch.status, 200);
          }
          const statuses = yield* Effect.forEach(
            [...Array(40).keys()],
            (i) =>
              Effect.map(
                transport.request({
                  method: "GET",
                  path: `/api/v1/namespaces/ns/pods/b${i}`,
                  headers: {},
                  connection,
                }),
                (response) => response.status,
              ),
            { concurrency: 40 },
          );
          assert.deepStrictEqual(new Set(statuses), new Set([200]));
          assert.strictEqual(statuses.length, 40);
          assert.isAtMost(connections - before, 2 + 3);
          assert.isAtLeast(connections - before, 3);
        }).pipe(Effect.scoped, Effect.provide(transport.layer({ requestConnections: 3 }))),
    );

    it.live("sends every method's body with its length, a DELETE's options too", () =>
      Effect.gen(function* () {
        const transport = yield* KubeTransport;
        const connection = { server: base, insecure: false, priority: 0, trustEnv: false };
        for (const method of ["DELETE", "PATCH", "POST", "PUT"] as const) {
          const body = new TextEncoder().encode(JSON.stringify({ propagationPolicy: "Foreground", method }));
          const response = yield* transport.request({
            method,
            path: "/api/v1/namespaces/ns/pods/p",
            headers: { "content-type": "application/json" },
            body,
            connection,
          });
          const echoed = JSON.parse(new TextDecoder().decode(response.body));
          assert.deepStrictEqual(echoed, {
            method,
            length: String(body.byteLength),
            body: new TextDecoder().decode(body),
          });
        }
        // The connection is still in step: a request after them is answered as itself.
        const after = yield* transport.request({
          method: "GET",
          path: "/api/v1/namespaces/ns/pods/after",
          headers: {},
          connection,
        });
        assert.strictEqual(JSON.parse(new TextDecoder().decode(after.body)).metadata.name, "after");
      }).pipe(Effect.scoped, Effect.provide(transport.layer())),
    );

    it.live("a server URL with a path prefix (e.g. behind a proxy) prefixes every request", () =>
      Effect.gen(function* () {
        seen.length = 0;
        yield* withApi((api) => api.get(pods, { namespace: "ns", name: "p" }), `${base}/k8s/clusters/c-1/`);
        assert.strictEqual(seen[0]?.url, "/k8s/clusters/c-1/api/v1/namespaces/ns/pods/p");
      }),
    );

    it.live("error statuses are mapped from the Status body", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          withApi((api) => api.get(pods, { namespace: "ns", name: "missing" })),
        );
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "NotFound");
        assert.strictEqual(error.message, 'pods "missing" not found');
      }),
    );

    it.live("streams watch events as they arrive and closes the request when the consumer stops", () =>
      Effect.gen(function* () {
        const closedBefore = watchClosed.length;
        const events = yield* withApi((api) =>
          Stream.runCollect(Stream.take(api.watch(pods, { namespace: "ns" }), 3)),
        );
        assert.deepStrictEqual(
          events.map((e) => e.object.metadata?.name),
          ["o1", "o2", "o3"],
        );
        for (let i = 0; i < 300 && watchClosed.length === closedBefore; i++) yield* Effect.sleep("10 millis");
        assert.strictEqual(watchClosed.length, closedBefore + 1);
      }),
    );

    it.live("a refused watch whose body is never read is closed without an unhandled error", () =>
      Effect.gen(function* () {
        const uncaught: Array<unknown> = [];
        const record = (error: unknown) => uncaught.push(error);
        process.on("uncaughtException", record);
        const status = yield* Effect.scoped(
          Effect.gen(function* () {
            const transport = yield* KubeTransport;
            const response = yield* transport.stream({
              method: "GET",
              path: "/api/v1/namespaces/forbidden/pods?watch=true",
              headers: {},
              connection: { server: base, priority: 0, trustEnv: false },
            });
            return response.status;
          }),
        ).pipe(Effect.provide(transport.layer()));
        yield* Effect.sleep("50 millis");
        process.off("uncaughtException", record);
        assert.strictEqual(status, 403);
        assert.deepStrictEqual(uncaught, []);
      }),
    );

    it.live("connection refused is a TransportError (not retried with no backoffs)", () =>
      Effect.gen(function* () {
        const closed = createServer();
        yield* Effect.promise(() => new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve)));
        const port = (closed.address() as AddressInfo).port;
        yield* Effect.promise(() => new Promise((resolve) => closed.close(resolve)));
        const settings = Settings.make({ networking: { errorBackoffs: [] } });
        if (settings._tag === "Failure") throw new Error("settings");
        const error = yield* Effect.flip(
          withApi((api) => api.get(pods, { namespace: "ns", name: "x" }), `http://127.0.0.1:${port}`).pipe(
            Effect.provideService(OperatorSettings, settings.success),
          ),
        );
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "TransportError");
        assert.include(error.message, "ECONNREFUSED");
      }),
    );

    it.live("a TLS handshake that never completes times out after networking.connectTimeout", () =>
      Effect.gen(function* () {
        const silent = createNetServer(() => {});
        yield* Effect.promise(() => new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve)));
        const port = (silent.address() as AddressInfo).port;
        const settings = Settings.make({
          networking: { errorBackoffs: [], requestTimeout: null, connectTimeout: 0.3 },
        });
        if (settings._tag === "Failure") throw new Error("settings");
        const error = yield* Effect.flip(
          withApi((api) => api.get(pods, { namespace: "ns", name: "x" }), `https://127.0.0.1:${port}`).pipe(
            Effect.provideService(OperatorSettings, settings.success),
          ),
        );
        silent.close();
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "Timeout");
      }),
    );

    it.live("a request without an answer times out after networking.requestTimeout", () =>
      Effect.gen(function* () {
        const settings = Settings.make({ networking: { errorBackoffs: [], requestTimeout: 0.3 } });
        if (settings._tag === "Failure") throw new Error("settings");
        const error = yield* Effect.flip(
          withApi((api) => api.get(pods, { namespace: "ns", name: "slow" })).pipe(
            Effect.provideService(OperatorSettings, settings.success),
          ),
        );
        assert.strictEqual(error._tag === "KubeApiError" && error.reason, "Timeout");
      }),
    );
  });
};

describe.each(TRANSPORTS)("%s", (_, transport) => suite(transport));

describe("the Node transport's own deadlines", () => {
  const request = (path: string, timeout: number | undefined) =>
    Effect.flatMap(KubeTransport, (transport) =>
      transport.request({
        method: "GET",
        path,
        headers: {},
        connection: { server: base, priority: 0, trustEnv: false },
        timeout,
      }),
    );

  it.live("says it keeps them, so the client gives each request its deadline instead of a timer race", () =>
    Effect.gen(function* () {
      const transport = yield* KubeTransport;
      assert.isTrue(transport.deadlines);
    }).pipe(Effect.provide(NodeTransport.layer())),
  );

  it.live(
    "an unanswered request fails with a Timeout at its deadline, and its connection is not reused",
    () =>
      Effect.gen(function* () {
        const before = connections;
        const started = performance.now();
        const error = yield* Effect.flip(request("/api/v1/namespaces/ns/pods/slow", 200));
        const waited = performance.now() - started;
        assert.strictEqual(error.reason, "Timeout");
        assert.include(error.message, "No response within 0.2s");
        assert.include(error.message, "/api/v1/namespaces/ns/pods/slow");
        assert.isAtLeast(waited, 190);
        assert.isBelow(waited, 5_000);
        // The next request answers, on a new connection (the abandoned one would deliver a late answer).
        const response = yield* request("/api/v1/namespaces/ns/pods/p1", 200);
        assert.strictEqual(response.status, 200);
        assert.strictEqual(connections - before, 2);
      }).pipe(Effect.provide(NodeTransport.layer({ requestConnections: 1 }))),
  );

  it.live("a request answered in time is not failed later by its deadline", () =>
    Effect.gen(function* () {
      const response = yield* request("/api/v1/namespaces/ns/pods/p2", 100);
      assert.strictEqual(response.status, 200);
      yield* Effect.sleep("250 millis");
      // The connection is still reusable after the deadline passed: the timer was cleared.
      const before = connections;
      const again = yield* request("/api/v1/namespaces/ns/pods/p3", undefined);
      assert.strictEqual(again.status, 200);
      assert.strictEqual(connections, before);
    }).pipe(Effect.provide(NodeTransport.layer({ requestConnections: 1 }))),
  );
});

describe("errorOf", () => {
  it.each([
    ["UND_ERR_CONNECT_TIMEOUT", "Timeout"],
    ["UND_ERR_HEADERS_TIMEOUT", "Timeout"],
    ["UND_ERR_BODY_TIMEOUT", "Timeout"],
    ["ECONNRESET", "TransportError"],
    ["UND_ERR_SOCKET", "TransportError"],
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "TransportError"],
  ])("%s ⇒ %s", (code, reason) => {
    const error = UndiciTransport.errorOf("GET https://h/api", Object.assign(new Error("boom"), { code }));
    assert.strictEqual(error.reason, reason);
    assert.include(error.message, code);
    assert.include(error.message, "GET https://h/api");
  });

  it("finds the code of a wrapped cause (fetch-style errors)", () => {
    const error = UndiciTransport.errorOf(
      "GET x",
      Object.assign(new TypeError("fetch failed"), {
        cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      }),
    );
    assert.strictEqual(error.reason, "TransportError");
    assert.include(error.message, "ECONNREFUSED");
  });
});
