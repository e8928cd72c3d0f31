// Covers the transport over real sockets: request decoding (method, path, query, lower-case
// headers, body, user), bearer-token and client-certificate authentication with the exact 401
// Status, the 413 body limit (declared and chunked), streaming responses flushed per chunk and
// ended on client disconnect or server close, keep-alive, plain HTTP, kubeconfig writing, the
// control surface (failures, drop, compact, pause/resume on the same port).
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Queue from "effect/Queue";
import * as Ref from "effect/Ref";
import * as Scope from "effect/Scope";
import { parse as parseYaml } from "yaml";
import { EmulatorServer } from "../../src/server/EmulatorServer.ts";
import { call, echoServer, json, makeProbe } from "./support.ts";

const withServer = <A, E>(
  options: Parameters<typeof echoServer>[1],
  body: (server: EmulatorServer["Service"], probe: Effect.Success<typeof makeProbe>) => Effect.Effect<A, E>,
) =>
  Effect.gen(function* () {
    const probe = yield* makeProbe;
    return yield* Effect.gen(function* () {
      const server = yield* EmulatorServer;
      return yield* body(server, probe);
    }).pipe(Effect.provide(echoServer(probe, options)));
  });

const unauthorizedBody = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

describe("EmulatorServer", () => {
  it.live("decodes requests into ApiRequests over HTTPS trusting the generated CA", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
        const reply = yield* call(server, "/api/v1/namespaces/ns1/pods?labelSelector=a%3Db&limit=5", {
          method: "PATCH",
          headers: {
            "Content-Type": "application/merge-patch+json",
            "X-Custom": "Yes",
            Authorization: "Bearer anything",
          },
          body: '{"metadata":{"labels":{"x":"y"}}}',
        });
        assert.strictEqual(reply.status, 200);
        const echo = json(reply);
        assert.strictEqual(echo.method, "PATCH");
        assert.strictEqual(echo.path, "/api/v1/namespaces/ns1/pods");
        assert.deepStrictEqual(echo.query, { labelSelector: "a=b", limit: "5" });
        const headers = echo.headers as Record<string, string>;
        assert.strictEqual(headers["content-type"], "application/merge-patch+json");
        assert.strictEqual(headers["x-custom"], "Yes");
        assert.strictEqual(echo.body, '{"metadata":{"labels":{"x":"y"}}}');
        assert.deepStrictEqual(echo.user, {
          username: "system:admin",
          groups: ["system:masters", "system:authenticated"],
        });
      }),
    ),
  );

  it.live("without a required token, requests without credentials are anonymous", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        const echo = json(yield* call(server, "/version"));
        assert.deepStrictEqual(echo.user, {
          username: "system:anonymous",
          groups: ["system:unauthenticated"],
        });
      }),
    ),
  );

  it.live(
    "with a required token, answers 401 with the real Status unless the token or a CA client certificate is given",
    () =>
      withServer({ token: "s3cret" }, (server, probe) =>
        Effect.gen(function* () {
          for (const headers of [
            {},
            { Authorization: "Bearer wrong" },
            { Authorization: "Basic Zm9vOmJhcg==" },
          ]) {
            const reply = yield* call(server, "/api/v1/namespaces", { headers });
            assert.strictEqual(reply.status, 401);
            assert.deepStrictEqual(json(reply), unauthorizedBody);
          }
          assert.strictEqual(
            (yield* call(server, "/api/v1/namespaces", { headers: { Authorization: "Bearer s3cret" } }))
              .status,
            200,
          );
          const cert = yield* server.issueClientCertificate({ username: "alice", groups: ["devs", "ops"] });
          const echo = json(yield* call(server, "/api/v1/namespaces", { cert }));
          assert.deepStrictEqual(echo.user, {
            username: "alice",
            groups: ["devs", "ops", "system:authenticated"],
          });
          assert.deepStrictEqual(yield* Ref.get(probe.calls), [
            "GET /api/v1/namespaces",
            "GET /api/v1/namespaces",
          ]);
        }),
      ),
  );

  it.live("a client certificate from another CA is not accepted", () =>
    Effect.gen(function* () {
      const otherCert = yield* withServer({}, (other) =>
        other.issueClientCertificate({ username: "mallory" }),
      );
      yield* withServer({ token: "t" }, (server) =>
        Effect.gen(function* () {
          const reply = yield* call(server, "/api/v1/namespaces", { cert: otherCert });
          assert.strictEqual(reply.status, 401);
        }),
      );
    }),
  );

  it.live("answers 413 with the real Status for declared and chunked bodies over the limit", () =>
    withServer({ maxBodyBytes: 1024 }, (server, probe) =>
      Effect.gen(function* () {
        const big = "x".repeat(200 * 1024);
        for (const chunked of [false, true]) {
          const reply = yield* call(server, "/api/v1/namespaces/default/configmaps", {
            method: "POST",
            body: big,
            chunked,
          });
          assert.strictEqual(reply.status, 413);
          assert.deepStrictEqual(json(reply), {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: "Request entity too large: limit is 1024",
            reason: "RequestEntityTooLarge",
            code: 413,
          });
        }
        const exact = yield* call(server, "/api/v1/namespaces/default/configmaps", {
          method: "POST",
          body: "y".repeat(1024),
        });
        assert.strictEqual(exact.status, 200);
        assert.deepStrictEqual(yield* Ref.get(probe.calls), ["POST /api/v1/namespaces/default/configmaps"]);
      }),
    ),
  );

  it.live("streams responses chunk by chunk and ends the stream's fiber when the client disconnects", () =>
    withServer({}, (server, probe) =>
      Effect.gen(function* () {
        const received = yield* Queue.unbounded<string>();
        const req = httpsRequest(new URL("/watch", server.url), { ca: server.caPem, agent: false }, (res) => {
          Queue.offerUnsafe(received, `status ${res.statusCode} ${res.headers["transfer-encoding"]}`);
          res.on("data", (chunk: Buffer) => Queue.offerUnsafe(received, chunk.toString("utf8")));
        });
        req.on("error", () => undefined);
        req.end();
        yield* Queue.offer(probe.watchChunks, '{"type":"ADDED"}\n');
        assert.strictEqual(yield* Queue.take(received), "status 200 chunked");
        assert.strictEqual(yield* Queue.take(received), '{"type":"ADDED"}\n');
        yield* Queue.offer(probe.watchChunks, '{"type":"MODIFIED"}\n');
        assert.strictEqual(yield* Queue.take(received), '{"type":"MODIFIED"}\n');
        assert.strictEqual(yield* Ref.get(probe.watchFinalized), 0);
        req.destroy();
        yield* Effect.gen(function* () {
          while ((yield* Ref.get(probe.watchFinalized)) === 0) yield* Effect.sleep("10 millis");
        }).pipe(Effect.timeout("5 seconds"));
        assert.strictEqual(yield* Ref.get(probe.watchFinalized), 1);
      }),
    ),
  );

  it.live("closing the server ends open streams", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe;
      const scope = yield* Scope.make();
      const context = yield* Layer.buildWithScope(echoServer(probe), scope);
      const server = context.mapUnsafe.get(EmulatorServer.key) as EmulatorServer["Service"];
      const ended = yield* Queue.unbounded<string>();
      const req = httpsRequest(new URL("/watch", server.url), { ca: server.caPem, agent: false }, (res) => {
        res.on("data", () => Queue.offerUnsafe(ended, "data"));
        res.on("close", () => Queue.offerUnsafe(ended, "closed"));
      });
      req.on("error", () => Queue.offerUnsafe(ended, "closed"));
      req.end();
      yield* Queue.offer(probe.watchChunks, "{}\n");
      assert.strictEqual(yield* Queue.take(ended), "data");
      yield* Scope.close(scope, Exit.void);
      assert.strictEqual(yield* Queue.take(ended).pipe(Effect.timeout("5 seconds")), "closed");
      assert.strictEqual(yield* Ref.get(probe.watchFinalized), 1);
    }),
  );

  it.live("keeps connections alive between requests", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
        const first = yield* call(server, "/version", { agent });
        yield* Effect.sleep("20 millis");
        const second = yield* call(server, "/version", { agent });
        assert.strictEqual(first.status, 200);
        assert.strictEqual(second.status, 200);
        assert.strictEqual(first.headers.connection, "keep-alive");
        assert.isFalse(first.reusedSocket);
        assert.isTrue(second.reusedSocket);
        agent.destroy();
      }),
    ),
  );

  it.live("serves plain HTTP and writes a kubeconfig with insecure-skip-tls-verify", () =>
    withServer({ tls: false }, (server) =>
      Effect.gen(function* () {
        assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.strictEqual((yield* call(server, "/version")).status, 200);
        const path = join(mkdtempSync(join(tmpdir(), "kopf-emu-")), "sub", "kubeconfig");
        yield* server.writeKubeconfig(path);
        const config = parseYaml(readFileSync(path, "utf8"));
        assert.deepStrictEqual(config.clusters[0].cluster, {
          server: server.url,
          "insecure-skip-tls-verify": true,
        });
        assert.deepStrictEqual(config.users[0].user, { token: "kopf-emulator" });
      }),
    ),
  );

  it.live("writes a kubeconfig with the CA inline and the required token", () =>
    withServer({ token: "tok" }, (server) =>
      Effect.sync(() => {
        const config = parseYaml(server.kubeconfig({ namespace: "ns1" }));
        assert.strictEqual(config.clusters[0].cluster.server, server.url);
        assert.strictEqual(
          Buffer.from(config.clusters[0].cluster["certificate-authority-data"], "base64").toString(),
          server.caPem,
        );
        assert.deepStrictEqual(config.users[0].user, { token: "tok" });
        assert.strictEqual(config.contexts[0].context.namespace, "ns1");
        assert.strictEqual(config["current-context"], config.contexts[0].name);
      }),
    ),
  );

  it.live("injects failures through the HTTP control surface for the next N matching requests", () =>
    withServer({}, (server, probe) =>
      Effect.gen(function* () {
        const armed = yield* call(server, "/.emulator/failures", {
          method: "POST",
          body: JSON.stringify({
            status: 503,
            verb: "get",
            resource: "pods",
            times: 2,
            retryAfterSeconds: 3,
          }),
        });
        assert.strictEqual(armed.status, 200);
        assert.strictEqual((yield* call(server, "/api/v1/namespaces/a/pods")).status, 200); // list: not matched
        for (let i = 0; i < 2; i++) {
          const failed = yield* call(server, "/api/v1/namespaces/a/pods/p1");
          assert.strictEqual(failed.status, 503);
          assert.strictEqual(failed.headers["retry-after"], "3");
          assert.deepStrictEqual(json(failed), {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: "injected failure (503)",
            reason: "ServiceUnavailable",
            details: { retryAfterSeconds: 3 },
            code: 503,
          });
        }
        assert.strictEqual((yield* call(server, "/api/v1/namespaces/a/pods/p1")).status, 200);
        assert.deepStrictEqual(json(yield* call(server, "/.emulator/faults")), {
          failures: [],
          latencies: [],
        });
        assert.deepStrictEqual(yield* Ref.get(probe.calls), [
          "GET /api/v1/namespaces/a/pods",
          "GET /api/v1/namespaces/a/pods/p1",
        ]);
      }),
    ),
  );

  it.live("adds latency through the HTTP control surface", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        const armed = yield* call(server, "/.emulator/latency", {
          method: "POST",
          body: JSON.stringify({ delayMillis: 400, verb: "get", times: 1 }),
        });
        assert.strictEqual(armed.status, 200);
        const pending = json(yield* call(server, "/.emulator/faults"));
        assert.deepStrictEqual(pending.latencies, [
          { delayMillis: 400, verb: "get", times: 1, remaining: 1 },
        ]);
        const started = performance.now();
        assert.strictEqual((yield* call(server, "/api/v1/namespaces/a/pods/p")).status, 200);
        assert.isAtLeast(performance.now() - started, 390);
        const again = performance.now();
        yield* call(server, "/api/v1/namespaces/a/pods/p");
        assert.isBelow(performance.now() - again, 390);
        assert.strictEqual((yield* call(server, "/.emulator/faults", { method: "DELETE" })).status, 200);
      }),
    ),
  );

  it.live("rejects bad control requests with clear Status answers", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        const badRule = yield* call(server, "/.emulator/failures", {
          method: "POST",
          body: '{"status": 200}',
        });
        assert.strictEqual(badRule.status, 400);
        assert.include(json(badRule).message as string, "invalid rule");
        const badJson = yield* call(server, "/.emulator/failures", { method: "POST", body: "{nope" });
        assert.strictEqual(badJson.status, 400);
        assert.include(json(badJson).message as string, "malformed JSON");
        const unknown = yield* call(server, "/.emulator/nothing");
        assert.strictEqual(unknown.status, 404);
        assert.strictEqual(json(unknown).reason, "NotFound");
        const wrongMethod = yield* call(server, "/.emulator/watches/drop");
        assert.strictEqual(wrongMethod.status, 405);
        assert.strictEqual(wrongMethod.headers.allow, "POST");
        const noSeconds = yield* call(server, "/.emulator/pause", { method: "POST", body: "{}" });
        assert.strictEqual(noSeconds.status, 400);
      }),
    ),
  );

  it.live("drops watches and compacts the history through the core", () =>
    withServer({}, (server, probe) =>
      Effect.gen(function* () {
        assert.strictEqual((yield* call(server, "/.emulator/watches/drop", { method: "POST" })).status, 200);
        assert.strictEqual(
          (yield* call(server, "/.emulator/history/compact", { method: "POST" })).status,
          200,
        );
        yield* server.control.dropWatches;
        assert.deepStrictEqual(yield* Ref.get(probe.calls), ["dropWatches", "compactHistory", "dropWatches"]);
      }),
    ),
  );

  it.live("pauses (refusing connections, dropping streams) and resumes on the same port", () =>
    withServer({}, (server, probe) =>
      Effect.gen(function* () {
        const closed = yield* Queue.unbounded<string>();
        const req = httpsRequest(new URL("/watch", server.url), { ca: server.caPem, agent: false }, (res) => {
          res.on("data", () => Queue.offerUnsafe(closed, "data"));
          res.on("close", () => Queue.offerUnsafe(closed, "closed"));
        });
        req.on("error", () => Queue.offerUnsafe(closed, "closed"));
        req.end();
        yield* Queue.offer(probe.watchChunks, "{}\n");
        assert.strictEqual(yield* Queue.take(closed), "data");
        yield* server.control.pause;
        assert.isTrue(yield* server.isPaused);
        assert.strictEqual(yield* Queue.take(closed).pipe(Effect.timeout("5 seconds")), "closed");
        const refused = yield* Effect.flip(call(server, "/version"));
        assert.include(refused.message, "ECONNREFUSED");
        yield* server.control.resume;
        assert.isFalse(yield* server.isPaused);
        assert.strictEqual((yield* call(server, "/version")).status, 200);
      }),
    ),
  );

  it.live("pauses for a while through the HTTP control surface", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        const reply = yield* call(server, "/.emulator/pause", { method: "POST", body: '{"seconds": 0.3}' });
        assert.strictEqual(reply.status, 200);
        yield* Effect.sleep("50 millis");
        assert.include((yield* Effect.flip(call(server, "/version"))).message, "ECONNREFUSED");
        yield* Effect.sleep("600 millis");
        assert.strictEqual((yield* call(server, "/version")).status, 200);
      }),
    ),
  );

  it.live("fails to start with a clear error when the port is taken", () =>
    withServer({}, (server) =>
      Effect.gen(function* () {
        const probe = yield* makeProbe;
        const error = yield* Effect.flip(
          Effect.provide(
            EmulatorServer.useSync(() => undefined),
            echoServer(probe, { port: server.port }),
          ),
        );
        assert.strictEqual(error.reason, "Listen");
        assert.include(error.message, `127.0.0.1:${server.port}`);
      }),
    ),
  );
});
