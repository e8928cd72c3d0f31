// The pools' TLS sessions against real TLS servers on loopback: a session one pool's connection was
// given is resumed by the next connection of any pool sharing the cell, a session the server
// cannot resume costs a full handshake and nothing else, and a session offered by a connection
// that failed is not offered again.
import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { createSecureContext, createServer as createTlsServer, type Server, type TLSSocket } from "node:tls";
import { afterAll, assert, beforeAll, describe, it } from "vitest";
import * as Http1Pool from "../../../src/live/internal/http1Pool.ts";
import { CA_A, SERVER_CERT, SERVER_KEY } from "../../fixtures/tls.ts";

interface TestServer {
  readonly server: Server;
  port: number;
  /** For each connection accepted, whether it resumed a session. */
  readonly resumed: Array<boolean>;
}

const tlsServer = async (): Promise<TestServer> => {
  const resumed: Array<boolean> = [];
  const server = createTlsServer({ cert: SERVER_CERT, key: SERVER_KEY }, (socket) => {
    resumed.push(socket.isSessionReused());
    socket.on("error", () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { server, port: (server.address() as { port: number }).port, resumed };
};

const endpoint = (port: number, sessions: Http1Pool.TlsSessions | undefined): Http1Pool.Endpoint => ({
  secure: true,
  hostname: "127.0.0.1",
  port: String(port),
  servername: undefined,
  secureContext: createSecureContext({ ca: CA_A }),
  rejectUnauthorized: true,
  sessions,
});

/** A connection of `pool`, or the error that no connection could be made. */
const connection = (pool: Http1Pool.Pool): Promise<Http1Pool.Connection | Error> =>
  new Promise((done) => {
    pool.acquire(5_000, done, (error) => done(error instanceof Error ? error : new Error(String(error))));
  });

const connected = async (pool: Http1Pool.Pool): Promise<TLSSocket> => {
  const made = await connection(pool);
  if (made instanceof Error) throw made;
  return made.socket as TLSSocket;
};

/** Waits until the cell holds a session other than `than` (TLS 1.3 tickets come after the handshake). */
const newSession = async (sessions: Http1Pool.TlsSessions, than?: Buffer): Promise<Buffer> => {
  for (const until = Date.now() + 5_000; Date.now() < until; ) {
    if (sessions.latest !== undefined && sessions.latest !== than) return sessions.latest;
    await new Promise((done) => setTimeout(done, 5));
  }
  throw new Error("no TLS session arrived");
};

describe("TLS sessions of the pools", () => {
  let first: TestServer;
  let second: TestServer;
  let refusing: NetServer;
  let refusingPort = 0;
  beforeAll(async () => {
    first = await tlsServer();
    second = await tlsServer();
    // Accepts and closes at once: every TLS handshake with it fails.
    refusing = createNetServer((socket) => socket.destroy());
    await new Promise<void>((done) => refusing.listen(0, "127.0.0.1", done));
    refusingPort = (refusing.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const server of [first.server, second.server, refusing])
      await new Promise((done) => server.close(done));
  });

  it("a session one pool was given is resumed by the connections of every pool sharing it", async () => {
    const sessions: Http1Pool.TlsSessions = { latest: undefined };
    const watches = Http1Pool.make(endpoint(first.port, sessions), { max: 1, keepAlive: 60_000 });
    const requests = Http1Pool.make(endpoint(first.port, sessions), { max: 4, keepAlive: 60_000 });
    const before = first.resumed.length;
    const watch = await connected(watches);
    assert.isFalse(watch.isSessionReused());
    await newSession(sessions);
    // A burst: all four connections are opened at once, each offering the watch's session.
    const burst = await Promise.all([1, 2, 3, 4].map(() => connected(requests)));
    assert.deepStrictEqual(
      burst.map((socket) => socket.isSessionReused()),
      [true, true, true, true],
    );
    // The server's side of the last handshake may be told a moment after the client's.
    for (const until = Date.now() + 5_000; first.resumed.length < before + 5 && Date.now() < until; )
      await new Promise((done) => setTimeout(done, 5));
    watches.destroy();
    requests.destroy();
    assert.deepStrictEqual(first.resumed.slice(before), [false, true, true, true, true]);
  });

  it("without a place for sessions every connection makes a full handshake", async () => {
    const pool = Http1Pool.make(endpoint(first.port, undefined), { max: 2, keepAlive: 60_000 });
    const one = await connected(pool);
    await new Promise((done) => setTimeout(done, 50));
    const two = await connected(pool);
    assert.deepStrictEqual([one.isSessionReused(), two.isSessionReused()], [false, false]);
    pool.destroy();
  });

  it("a session the server cannot resume costs a full handshake; the server's own replaces it", async () => {
    const sessions: Http1Pool.TlsSessions = { latest: undefined };
    const elsewhere = Http1Pool.make(endpoint(first.port, sessions), { max: 1, keepAlive: 60_000 });
    await connected(elsewhere);
    const foreign = await newSession(sessions);
    // The second server has ticket keys of its own: the first server's session means nothing there.
    const pool = Http1Pool.make(endpoint(second.port, sessions), { max: 1, keepAlive: 60_000 });
    const socket = await connected(pool);
    assert.isFalse(socket.isSessionReused());
    assert.isTrue(socket.authorized);
    const own = await newSession(sessions, foreign);
    assert.notStrictEqual(own, foreign);
    elsewhere.destroy();
    pool.destroy();
  });

  it("a session offered by a connection that failed is not offered again", async () => {
    const sessions: Http1Pool.TlsSessions = { latest: undefined };
    const good = Http1Pool.make(endpoint(first.port, sessions), { max: 1, keepAlive: 60_000 });
    await connected(good);
    await newSession(sessions);
    const bad = Http1Pool.make(endpoint(refusingPort, sessions), { max: 1, keepAlive: 60_000 });
    const failed = await connection(bad);
    assert.instanceOf(failed, Error);
    assert.isUndefined(sessions.latest);
    good.destroy();
    bad.destroy();
  });
});
