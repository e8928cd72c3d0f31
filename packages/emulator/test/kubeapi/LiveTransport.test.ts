// Covers both live transports (Node.js's own client, the default, and undici) against a local
// node:https server on 127.0.0.1 with a CA from the emulator's TLS kit: one TLS connection for many requests (keep-alive), TLS material read
// from files (certificate-authority, client certificate and key paths) and from data, client
// certificates presented when asked, verification on by default (an unknown CA fails), and
// tls-server-name deciding the name that is verified, TLS material that cannot be used failing before
// any connection with the server named, one TLS context shared by all of a burst's connections; and
// credentials with a proxy URL sent by the default transport through a local CONNECT proxy
// (undici's proxy agent).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:https";
import { type AddressInfo, connect as connectTcp, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest";
import {
  type ConnectionInfo,
  CredentialsVault,
  KubeApi,
  KubeApiError,
  KubeTransport,
  NodeTransport,
  UndiciTransport,
} from "@kopf/client";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as CertificateAuthority from "../../src/tls/CertificateAuthority.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-live-tls-"));
let server: Server;
let base = "";
let connections = 0;
const peers: Array<string | undefined> = [];
let ca: CertificateAuthority.CertificateAuthority;
let client: CertificateAuthority.KeyPair;

beforeAll(async () => {
  ca = await Effect.runPromise(CertificateAuthority.make());
  const serving = await Effect.runPromise(ca.issueServing());
  client = await Effect.runPromise(ca.issueClient({ username: "robot" }));
  server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
      keepAlive: true,
    },
    (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket as TLSSocket;
      peers.push(
        socket.authorized ? (socket.getPeerCertificate().subject?.CN as string | undefined) : undefined,
      );
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ kind: "Namespace", metadata: { name: "x" } }));
    },
  );
  server.on("secureConnection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const request = (connection: ConnectionInfo.ConnectionInfo) =>
  Effect.flatMap(KubeTransport, (transport) =>
    transport.request({ method: "GET", path: "/api/v1/namespaces/x", headers: {}, connection }),
  );

const info = (fields: Partial<ConnectionInfo.ConnectionInfo>): ConnectionInfo.ConnectionInfo => ({
  server: base,
  priority: 0,
  trustEnv: false,
  ...fields,
});

const TRANSPORTS = [
  ["node:https", NodeTransport],
  ["undici", UndiciTransport],
] as const;

describe.each(TRANSPORTS)("the live transport over HTTPS (%s)", (_, transport) => {
  it.live("verifies with a CA file and reuses one TLS connection for many requests", () =>
    Effect.gen(function* () {
      const before = connections;
      const connection = info({ caPath: file("ca.pem", ca.certPem) });
      for (let i = 0; i < 30; i++) assert.strictEqual((yield* request(connection)).status, 200);
      assert.strictEqual(connections - before, 1);
    }).pipe(Effect.provide(transport.layer())),
  );

  it.live("presents a client certificate from files or from base64 data", () =>
    Effect.gen(function* () {
      peers.length = 0;
      const ca64 = Buffer.from(ca.certPem).toString("base64");
      yield* request(
        info({
          caData: ca64,
          certificatePath: file("c.pem", client.certPem),
          privateKeyPath: file("k.pem", client.keyPem),
        }),
      );
      yield* request(
        info({
          caData: ca.certPem,
          certificateData: Buffer.from(client.certPem).toString("base64"),
          privateKeyData: client.keyPem,
        }),
      );
      yield* request(info({ caData: ca.certPem }));
      assert.deepStrictEqual(peers, ["robot", "robot", undefined]);
    }).pipe(Effect.provide(transport.layer())),
  );

  it.live("refuses a server that the configured CA did not sign, unless insecure", () =>
    Effect.gen(function* () {
      const other = yield* CertificateAuthority.make();
      const error = yield* Effect.flip(request(info({ caData: other.certPem })));
      assert.instanceOf(error, KubeApiError);
      assert.strictEqual(error.reason, "TransportError");
      const systemRoots = yield* Effect.flip(request(info({})));
      assert.strictEqual(systemRoots.reason, "TransportError");
      assert.strictEqual((yield* request(info({ insecure: true }))).status, 200);
    }).pipe(Effect.provide(transport.layer())),
  );

  it.live("tls-server-name decides the verified name", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        (yield* request(info({ caData: ca.certPem, tlsServerName: "localhost" }))).status,
        200,
      );
      const error = yield* Effect.flip(request(info({ caData: ca.certPem, tlsServerName: "other.example" })));
      assert.include(error.message, "other.example");
    }).pipe(Effect.provide(transport.layer())),
  );

  it.live(
    "a client key that does not match its certificate fails before any connection, naming the server",
    () =>
      Effect.gen(function* () {
        const stranger = yield* ca.issueClient({ username: "stranger" });
        const before = connections;
        const error = yield* Effect.flip(
          request(
            info({ caData: ca.certPem, certificateData: client.certPem, privateKeyData: stranger.keyPem }),
          ),
        );
        assert.instanceOf(error, KubeApiError);
        assert.strictEqual(error.reason, "TransportError");
        assert.include(error.message, `The TLS material for ${base} cannot be used`);
        assert.match(error.message, /key values mismatch/);
        assert.strictEqual(connections, before, "no connection was tried");
      }).pipe(Effect.provide(transport.layer())),
  );

  it.live("an unreadable CA file is a clear TransportError naming the file", () =>
    Effect.gen(function* () {
      const missing = join(dir, "nope.pem");
      const error = yield* Effect.flip(request(info({ caPath: missing })));
      assert.include(error.message, missing);
    }).pipe(Effect.provide(transport.layer())),
  );

  it.live("through KubeApi: the same pool serves the whole client", () =>
    Effect.suspend(() => {
      const namespaces = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });
      const live = KubeApi.layer().pipe(
        Layer.provide(
          Layer.mergeAll(
            transport.layer(),
            CredentialsVault.layerStatic({ main: info({ caData: ca.certPem, token: "t" }) }),
          ),
        ),
      );
      return Effect.gen(function* () {
        const before = connections;
        const api = yield* KubeApi;
        for (let i = 0; i < 10; i++) yield* api.get(namespaces, { name: "x" });
        assert.strictEqual(connections - before, 1);
      }).pipe(Effect.provide(live));
    }),
  );
});

describe("credentials with a proxy URL", () => {
  it.live("go through the proxy (an HTTP CONNECT tunnel) with the default transport", () =>
    Effect.gen(function* () {
      const tunnels: Array<string> = [];
      const open = new Set<Socket>();
      const proxy = createHttpServer();
      proxy.on("connect", (request: IncomingMessage, client: Socket) => {
        tunnels.push(request.url ?? "");
        const [host, port] = (request.url ?? "").split(":");
        const upstream = connectTcp(Number(port), host, () => {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          upstream.pipe(client);
          client.pipe(upstream);
        });
        for (const socket of [client, upstream]) {
          open.add(socket);
          socket.on("error", () => socket.destroy());
          socket.on("close", () => open.delete(socket));
        }
      });
      yield* Effect.promise(() => new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve)));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const before = connections;
      const statuses = yield* Effect.forEach([1, 2, 3], () =>
        Effect.map(request(info({ caData: ca.certPem, proxyUrl })), (response) => response.status),
      ).pipe(Effect.provide(NodeTransport.layer()));
      for (const socket of open) socket.destroy();
      proxy.close();
      assert.deepStrictEqual(statuses, [200, 200, 200]);
      assert.deepStrictEqual(tunnels, [new URL(base).host]);
      assert.strictEqual(connections - before, 1);
    }),
  );
});

describe("the default transport's TLS context (node:https)", () => {
  it.live("is built once per server and shared by every connection a burst opens", () =>
    Effect.gen(function* () {
      const tls = process.getBuiltinModule("node:tls");
      const original = tls.createSecureContext;
      let built = 0;
      tls.createSecureContext = (options) => {
        built++;
        return original(options);
      };
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          tls.createSecureContext = original;
        }),
      );
      const before = connections;
      const connection = info({
        caData: ca.certPem,
        certificateData: client.certPem,
        privateKeyData: client.keyPem,
      });
      const statuses = yield* Effect.all(
        Array.from({ length: 8 }, () => Effect.map(request(connection), (response) => response.status)),
        { concurrency: "unbounded" },
      );
      assert.deepStrictEqual(statuses, Array(8).fill(200));
      assert.isAbove(connections - before, 1, "the burst opened several connections");
      assert.strictEqual(built, 1);
    }).pipe(Effect.provide(NodeTransport.layer()), Effect.scoped),
  );
});
