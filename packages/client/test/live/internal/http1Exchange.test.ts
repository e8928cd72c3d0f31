// The lean request path over real loopback sockets: a scripted raw TCP server answers each
// request as a test says (well, cut, malformed, closing, never), and the tests count the
// connections it accepted. Covered: keep-alive reuse, the bound on connections with waiting
// requests served as connections free up, a connection the server closes while idle, responses
// that leave a connection out of step (connection: close, bytes past the end), cut and malformed
// responses as TransportErrors naming the request, an interrupted request closing its
// connection, idle connections closed after keepAlive, TLS verification (trusted CA, unknown
// CA, insecure, a server name the certificate does not carry) through NodeTransport, and
// streamed bodies: pieces as sent, the connection reused after a body that ended, closed when
// the consumer stops early, a cut mid-body, and the socket paused while the consumer lags.
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Stream from "effect/Stream";
import type { TransportRequest } from "../../../src/KubeTransport.ts";
import { KubeTransport } from "../../../src/KubeTransport.ts";
import * as Http1Exchange from "../../../src/live/internal/http1Exchange.ts";
import * as Http1Pool from "../../../src/live/internal/http1Pool.ts";
import * as Http1Stream from "../../../src/live/internal/http1Stream.ts";
import { targetOf } from "../../../src/live/internal/requestTarget.ts";
import * as NodeTransport from "../../../src/live/NodeTransport.ts";
import { CA_A, CA_B, SERVER_CERT, SERVER_KEY } from "../../fixtures/tls.ts";

/** What the server does with a request, by its path. */
type Answer = (socket: Socket) => void;
const ok =
  (body: string, extra = "") =>
  (socket: Socket) =>
    socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`);
const answers: Record<string, Answer> = {
  "/ok": ok('{"ok":true}'),
  "/chunked": (socket) =>
    socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"a\r\n5\r\n":1}\n\r\n0\r\n\r\n'),
  "/close-after": (socket) => {
    ok("{}")(socket);
    socket.end();
  },
  "/connection-close": ok("{}", "connection: close\r\n"),
  "/extra": (socket) => socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}garbage"),
  "/cut": (socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial');
    socket.end();
  },
  "/reset": (socket) => socket.destroy(),
  "/malformed": (socket) => socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n"),
  "/never": () => undefined,
  "/endless": (socket) => {
    socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
    const line = '{"type":"ADDED","object":{}}\n';
    const timer = setInterval(() => socket.write(`${line.length.toString(16)}\r\n${line}\r\n`), 5);
    socket.on("close", () => clearInterval(timer));
  },
  "/cut-stream": (socket) => {
    socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n");
    setTimeout(() => socket.destroy(), 20);
  },
  "/flood": (socket) => {
    flooding = socket;
    socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${FLOOD_BYTES}\r\n\r\n`);
    for (let sent = 0; sent < FLOOD_BYTES; sent += FLOOD_PIECE) socket.write(Buffer.alloc(FLOOD_PIECE, 120));
  },
};
/** Bytes the flood sends: well beyond the reader's high-water mark and the kernel's buffers. */
const FLOOD_BYTES = 64 * 1024 * 1024;
const FLOOD_PIECE = 64 * 1024;
let flooding: Socket | undefined;

let server: Server;
let port = 0;
let accepted = 0;
const live = new Set<Socket>();

const serve = (socket: Socket) => {
  accepted++;
  live.add(socket);
  socket.on("close", () => live.delete(socket));
  socket.on("error", () => undefined);
  let buffered = "";
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("latin1");
    for (let end = buffered.indexOf("\r\n\r\n"); end !== -1; end = buffered.indexOf("\r\n\r\n")) {
      const head = buffered.slice(0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      const path = head.split(" ")[1] ?? "";
      (answers[path] ?? ok("{}"))(socket);
    }
  });
};

beforeAll(async () => {
  server = createNetServer(serve);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of live) socket.destroy();
  await new Promise((done) => server.close(done));
});

const requestTo = (path: string, server = `http://127.0.0.1:${port}`): TransportRequest => ({
  method: "GET",
  path,
  headers: { authorization: "Bearer t" },
  connection: { server, priority: 0, trustEnv: false },
});

const plainPool = (max = 4, keepAlive = 60_000) =>
  Http1Pool.make(
    {
      secure: false,
      hostname: "127.0.0.1",
      port: String(port),
      servername: undefined,
      secureContext: undefined,
      rejectUnauthorized: true,
    },
    { max, keepAlive },
  );

const send = (pool: Http1Pool.Pool, path: string) => {
  const request = requestTo(path);
  return Http1Exchange.send(pool, request, targetOf(request), 5_000);
};
const text = (body: Uint8Array) => new TextDecoder().decode(body);

describe("the lean request path", () => {
  it.live("reuses one connection for sequential requests, chunked or not", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const before = accepted;
      for (let i = 0; i < 10; i++) {
        const response = yield* send(pool, i % 2 === 0 ? "/ok" : "/chunked");
        assert.strictEqual(response.status, 200);
        assert.strictEqual(text(response.body), i % 2 === 0 ? '{"ok":true}' : '{"a":1}\n');
      }
      assert.strictEqual(accepted - before, 1);
      pool.destroy();
    }),
  );

  it.live("opens at most max connections; waiting requests take them as they free up", () =>
    Effect.gen(function* () {
      const pool = plainPool(3);
      const before = accepted;
      const statuses = yield* Effect.forEach(
        Array.from({ length: 30 }, (_, i) => i),
        () => Effect.map(send(pool, "/ok"), (response) => response.status),
        { concurrency: 30 },
      );
      assert.deepStrictEqual(new Set(statuses), new Set([200]));
      assert.strictEqual(accepted - before, 3);
      assert.strictEqual(pool.size(), 3);
      pool.destroy();
    }),
  );

  it.live("a connection the server closes while idle is dropped; the next request opens another", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const before = accepted;
      assert.strictEqual((yield* send(pool, "/close-after")).status, 200);
      for (let i = 0; i < 100 && pool.size() > 0; i++) yield* Effect.sleep("5 millis");
      assert.strictEqual(pool.size(), 0);
      assert.strictEqual((yield* send(pool, "/ok")).status, 200);
      assert.strictEqual(accepted - before, 2);
      pool.destroy();
    }),
  );

  it.live("connection: close and bytes past the end leave the connection out of use", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const before = accepted;
      assert.strictEqual((yield* send(pool, "/connection-close")).status, 200);
      assert.strictEqual(text((yield* send(pool, "/extra")).body), "{}");
      assert.strictEqual(text((yield* send(pool, "/ok")).body), '{"ok":true}');
      assert.strictEqual(accepted - before, 3);
      pool.destroy();
    }),
  );

  it.live("cut, reset and malformed responses fail as TransportErrors naming the request", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const cut = yield* Effect.flip(send(pool, "/cut"));
      assert.strictEqual(cut.reason, "TransportError");
      assert.include(cut.message, `GET http://127.0.0.1:${port}/cut`);
      assert.include(cut.message, "the connection closed before the response ended");
      const reset = yield* Effect.flip(send(pool, "/reset"));
      assert.strictEqual(reset.reason, "TransportError");
      assert.include(reset.message, "the connection closed before any response");
      const malformed = yield* Effect.flip(send(pool, "/malformed"));
      assert.strictEqual(malformed.reason, "TransportError");
      assert.include(malformed.message, "malformed response: not an HTTP/1.x status line");
      // The pool is still usable, and none of the broken connections was kept.
      assert.strictEqual((yield* send(pool, "/ok")).status, 200);
      assert.strictEqual(pool.size(), 1);
      pool.destroy();
    }),
  );

  it.live("a request that cannot be encoded fails before anything is sent", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const before = accepted;
      const error = yield* Effect.flip(send(pool, "/a b"));
      assert.strictEqual(error.reason, "TransportError");
      assert.include(error.message, "cannot send the request");
      assert.strictEqual(accepted - before, 0);
      pool.destroy();
    }),
  );

  it.live("an interrupted request closes its connection; the pool stays usable", () =>
    Effect.gen(function* () {
      const pool = plainPool(1);
      const fiber = yield* Effect.forkChild(send(pool, "/never"));
      for (let i = 0; i < 100 && pool.size() === 0; i++) yield* Effect.sleep("5 millis");
      // A second request waits for the only connection.
      const waiting = yield* Effect.forkChild(send(pool, "/ok"));
      yield* Effect.sleep("20 millis");
      yield* Fiber.interrupt(fiber);
      const response = yield* Fiber.join(waiting);
      assert.strictEqual(response.status, 200);
      assert.strictEqual(pool.size(), 1);
      pool.destroy();
    }),
  );

  it.live("an idle connection is closed after keepAlive", () =>
    Effect.gen(function* () {
      const pool = plainPool(4, 50);
      assert.strictEqual((yield* send(pool, "/ok")).status, 200);
      assert.strictEqual(pool.size(), 1);
      for (let i = 0; i < 100 && pool.size() > 0; i++) yield* Effect.sleep("10 millis");
      assert.strictEqual(pool.size(), 0);
    }),
  );

  it.live("a closed pool finishes its requests but keeps no connection", () =>
    Effect.gen(function* () {
      const pool = plainPool(1);
      const first = yield* Effect.forkChild(send(pool, "/ok"));
      const second = yield* Effect.forkChild(send(pool, "/ok"));
      pool.close();
      assert.strictEqual((yield* Fiber.join(first)).status, 200);
      assert.strictEqual((yield* Fiber.join(second)).status, 200);
      for (let i = 0; i < 100 && pool.size() > 0; i++) yield* Effect.sleep("5 millis");
      assert.strictEqual(pool.size(), 0);
    }),
  );
});

describe("the lean request path over TLS (NodeTransport)", () => {
  let tlsServer: Server;
  let tlsPort = 0;
  /** For each TLS connection accepted, whether it resumed a session. */
  const tlsResumed: Array<boolean> = [];
  beforeAll(async () => {
    tlsServer = createTlsServer({ cert: SERVER_CERT, key: SERVER_KEY }, (socket) => {
      tlsResumed.push(socket.isSessionReused());
      serve(socket);
    });
    await new Promise<void>((done) => tlsServer.listen(0, "127.0.0.1", done));
    tlsPort = (tlsServer.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((done) => tlsServer.close(done));
  });

  const viaTransport = (connection: Partial<TransportRequest["connection"]>) =>
    Effect.gen(function* () {
      const transport = yield* KubeTransport;
      const request = requestTo("/ok", `https://127.0.0.1:${tlsPort}`);
      return yield* transport.request({ ...request, connection: { ...request.connection, ...connection } });
    }).pipe(Effect.provide(NodeTransport.layer()));

  it.live("a server whose certificate the CA signed is trusted", () =>
    Effect.gen(function* () {
      const response = yield* viaTransport({ caData: Buffer.from(CA_A).toString("base64") });
      assert.strictEqual(text(response.body), '{"ok":true}');
    }),
  );

  it.live("a request's connection resumes the TLS session of its watch's; another identity does not", () =>
    Effect.gen(function* () {
      const transport = yield* KubeTransport;
      const server = `https://127.0.0.1:${tlsPort}`;
      const trusted = { caData: Buffer.from(CA_A).toString("base64") };
      const to = (path: string, connection: Partial<TransportRequest["connection"]>) => {
        const request = requestTo(path, server);
        return { ...request, connection: { ...request.connection, ...connection } };
      };
      const before = tlsResumed.length;
      yield* Effect.scoped(
        Effect.gen(function* () {
          const watch = yield* transport.stream(to("/endless", trusted));
          // Its first event read, the session ticket sent before it was read too.
          yield* Stream.runDrain(Stream.take(watch.body, 1));
          assert.strictEqual((yield* transport.request(to("/ok", trusted))).status, 200);
          assert.strictEqual(
            (yield* transport.request(to("/ok", { ...trusted, insecure: true }))).status,
            200,
          );
        }),
      );
      // The watch's full handshake, the request's resumed one, the other identity's full one.
      assert.deepStrictEqual(tlsResumed.slice(before), [false, true, false]);
    }).pipe(Effect.provide(NodeTransport.layer())),
  );

  it.live("an unknown CA is refused, unless the credentials say insecure", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(viaTransport({ caData: Buffer.from(CA_B).toString("base64") }));
      assert.strictEqual(error.reason, "TransportError");
      assert.match(error.message, /certificate|self.signed|issuer/i);
      const insecure = yield* viaTransport({ caData: Buffer.from(CA_B).toString("base64"), insecure: true });
      assert.strictEqual(insecure.status, 200);
    }),
  );

  it.live("tlsServerName is the name verified (the certificate carries only 127.0.0.1)", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        viaTransport({ caData: Buffer.from(CA_A).toString("base64"), tlsServerName: "kubernetes.default" }),
      );
      assert.strictEqual(error.reason, "TransportError");
      assert.include(error.message, "kubernetes.default");
    }),
  );
});

describe("streamed responses on the lean path", () => {
  const streamPath = (path: string) => {
    const request = requestTo(path);
    return { request, target: targetOf(request) };
  };

  it.live("pieces arrive as sent; a body that ends in step gives the connection back", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const before = accepted;
      for (let round = 0; round < 3; round++) {
        const { request, target } = streamPath("/chunked");
        const response = yield* Effect.scoped(
          Effect.flatMap(Http1Stream.open(pool, request, target, 5_000), (response) =>
            Effect.map(Stream.runCollect(response.body), (chunks) => ({ ...response, chunks })),
          ),
        );
        assert.strictEqual(response.status, 200);
        assert.strictEqual(response.chunks.map(text).join(""), '{"a":1}\n');
      }
      assert.strictEqual(accepted - before, 1);
      pool.destroy();
    }),
  );

  it.live("a consumer that stops early closes the connection", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const { request, target } = streamPath("/endless");
      const first = yield* Effect.scoped(
        Effect.flatMap(Http1Stream.open(pool, request, target, 5_000), (response) =>
          Stream.runHead(response.body),
        ),
      );
      assert.isTrue(first._tag === "Some" && text(first.value).startsWith('{"type":"ADDED"'));
      for (let i = 0; i < 100 && pool.size() > 0; i++) yield* Effect.sleep("5 millis");
      assert.strictEqual(pool.size(), 0);
    }),
  );

  it.live("a connection cut mid-body fails the body as a TransportError", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const { request, target } = streamPath("/cut-stream");
      const error = yield* Effect.scoped(
        Effect.flatMap(Http1Stream.open(pool, request, target, 5_000), (response) =>
          Effect.flip(Stream.runDrain(response.body)),
        ),
      );
      assert.strictEqual(error.reason, "TransportError");
      assert.include(error.message, "the connection closed before the response ended");
      pool.destroy();
    }),
  );

  it.live("while the consumer does not pull, the socket is paused and the server's writes back up", () =>
    Effect.gen(function* () {
      const pool = plainPool();
      const { request, target } = streamPath("/flood");
      const total = yield* Effect.scoped(
        Effect.gen(function* () {
          const response = yield* Http1Stream.open(pool, request, target, 5_000);
          yield* Effect.sleep("300 millis");
          // Most of the flood is still on the server's side, not in this process.
          assert.isAbove(flooding?.writableLength ?? 0, FLOOD_BYTES / 2);
          return yield* Stream.runFold(
            response.body,
            () => 0,
            (sum, chunk) => sum + chunk.length,
          );
        }),
      );
      assert.strictEqual(total, FLOOD_BYTES);
      pool.destroy();
    }),
  );
});
