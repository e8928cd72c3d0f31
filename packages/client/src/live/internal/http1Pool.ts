/**
 * The connections of the lean request path to one server (and TLS identity): at most `max` at a
 * time, reused most-recently-used first while they stay open, closed after `keepAlive` ms idle,
 * and handed to waiting requests as they free up. Each connection carries one request at a time;
 * its socket's events go to that request's handlers (one set of listeners for the connection's
 * life, not one per request). An idle connection that the server closes, or that receives bytes
 * nobody asked for, is dropped. Edge code: sockets and timers.
 */
import type * as Net from "node:net";
import type * as Tls from "node:tls";
import { CONNECT_TIMEOUT_CODE } from "./transportFailure.ts";

/** Where the connections go. */
export interface Endpoint {
  readonly secure: boolean;
  /** The host name, an IPv6 address without brackets. */
  readonly hostname: string;
  /** The port as the server URL has it (empty for the scheme's default). */
  readonly port: string;
  /** The name TLS asks for and verifies (the credentials' `tlsServerName`, else the host name). */
  readonly servername: string | undefined;
  readonly secureContext: Tls.SecureContext | undefined;
  readonly rejectUnauthorized: boolean;
  /**
   * Where the pools of this server and TLS identity keep the latest TLS session the server gave,
   * so that a new connection resumes it (see {@link TlsSessions}); none: every connection makes
   * a full handshake.
   */
  readonly sessions?: TlsSessions | undefined;
}

/**
 * The latest TLS session (ticket) of one server and TLS identity, shared by the pools that
 * connect there (requests and streams). A new connection offers it: the server then skips the
 * certificate exchange (and Node.js the check of the server's name, which the session's first
 * handshake made), a burst opening a pool's connections at once resumes the session its watch
 * connection was given at start. A server that declines it makes a full handshake instead.
 */
export interface TlsSessions {
  latest: Buffer | undefined;
}

/** What a connection tells the request it carries. */
export interface Handlers {
  readonly data: (chunk: Buffer) => void;
  /** The server ended its side. */
  readonly end: () => void;
  /** The connection is gone; `error` is the socket's last error, if any. */
  readonly closed: (error: unknown) => void;
}

/** One connection. */
export interface Connection {
  readonly socket: Net.Socket;
  /** The request it carries now; undefined while idle or connecting. */
  handlers: Handlers | undefined;
  lastError: unknown;
}

export interface Pool {
  /**
   * A connection for one request: `ready` gets it (at once when one is idle), `failed` the
   * reason no connection could be made. Returns a cancel function for an interrupted request.
   */
  readonly acquire: (
    connectTimeout: number,
    ready: (connection: Connection) => void,
    failed: (error: unknown) => void,
  ) => () => void;
  /** Gives a connection back: kept for the next request if `reusable`, else closed. */
  readonly release: (connection: Connection, reusable: boolean) => void;
  /**
   * Keeps nothing idle from now on: idle connections close, busy ones once their request (and
   * the requests already waiting) are done.
   */
  readonly close: () => void;
  /** Closes every connection now. */
  readonly destroy: () => void;
  /** Connections open (connecting, busy or idle), for tests. */
  readonly size: () => number;
}

interface Waiter {
  readonly connectTimeout: number;
  readonly ready: (connection: Connection) => void;
  readonly failed: (error: unknown) => void;
}

const noop = () => undefined;

/**
 * A pool of connections to `endpoint`.
 *
 * @example
 * ```ts
 * const pool = Http1Pool.make(endpoint, { max: 32, keepAlive: 60_000 })
 * const cancel = pool.acquire(30_000, (connection) => connection.socket.write(bytes), (error) => fail(error))
 * ```
 */
export const make = (
  endpoint: Endpoint,
  options: { readonly max: number; readonly keepAlive: number },
): Pool => {
  const net = process.getBuiltinModule("node:net");
  const tls = process.getBuiltinModule("node:tls");
  const port = Number(endpoint.port) || (endpoint.secure ? 443 : 80);
  const idle: Array<Connection> = [];
  const open = new Set<Connection>();
  const waiters: Array<Waiter> = [];
  let closing = false;

  const dropIdle = (connection: Connection) => {
    const at = idle.indexOf(connection);
    if (at !== -1) idle.splice(at, 1);
  };

  /** Serves waiting requests while there are idle connections or room for new ones. */
  const wake = () => {
    while (waiters.length > 0 && (idle.length > 0 || open.size < options.max)) {
      const waiter = waiters.shift() as Waiter;
      take(waiter);
    }
  };

  const connect = (waiter: Waiter): (() => void) => {
    const sessions = endpoint.secure ? endpoint.sessions : undefined;
    const offered = sessions?.latest;
    const socket: Net.Socket = endpoint.secure
      ? tls.connect({
          host: endpoint.hostname,
          port,
          ...(endpoint.servername === undefined ? {} : { servername: endpoint.servername }),
          ...(endpoint.secureContext === undefined ? {} : { secureContext: endpoint.secureContext }),
          ...(offered === undefined ? {} : { session: offered }),
          rejectUnauthorized: endpoint.rejectUnauthorized,
        })
      : net.connect({ host: endpoint.hostname, port });
    if (sessions !== undefined)
      socket.on("session", (session: Buffer) => {
        sessions.latest = session;
      });
    const connection: Connection = { socket, handlers: undefined, lastError: undefined };
    open.add(connection);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    let connecting = true;
    const timer = setTimeout(() => {
      socket.destroy(
        Object.assign(new Error(`no connection within ${waiter.connectTimeout} ms`), {
          code: CONNECT_TIMEOUT_CODE,
        }),
      );
    }, waiter.connectTimeout);
    timer.unref();
    socket.once(endpoint.secure ? "secureConnect" : "connect", () => {
      clearTimeout(timer);
      connecting = false;
      waiter.ready(connection);
    });
    socket.on("data", (chunk: Buffer) => {
      if (connection.handlers !== undefined) connection.handlers.data(chunk);
      else socket.destroy(); // bytes nobody asked for: the connection is out of step
    });
    socket.on("end", () => connection.handlers?.end());
    socket.on("error", (error) => {
      connection.lastError = error;
    });
    // The idle timer runs only while the connection is idle (see `take` and `release`).
    socket.on("timeout", () => socket.destroy());
    socket.on("close", () => {
      clearTimeout(timer);
      open.delete(connection);
      dropIdle(connection);
      const handlers = connection.handlers;
      connection.handlers = undefined;
      if (connecting) {
        connecting = false;
        // A session offered by a connection that failed is not offered again (as Node.js's agents).
        if (sessions !== undefined && sessions.latest === offered) sessions.latest = undefined;
        waiter.failed(connection.lastError ?? new Error("the connection closed while connecting"));
      } else handlers?.closed(connection.lastError);
      wake();
    });
    return () => {
      if (connecting) socket.destroy();
    };
  };

  /** Gives `waiter` an idle connection, or a new one. */
  const take = (waiter: Waiter): (() => void) => {
    for (let connection = idle.pop(); connection !== undefined; connection = idle.pop()) {
      if (connection.socket.destroyed) continue;
      connection.socket.setTimeout(0);
      waiter.ready(connection);
      return noop;
    }
    return connect(waiter);
  };

  const acquire: Pool["acquire"] = (connectTimeout, ready, failed) => {
    const waiter: Waiter = { connectTimeout, ready, failed };
    if (idle.length > 0 || open.size < options.max) return take(waiter);
    waiters.push(waiter);
    return () => {
      const at = waiters.indexOf(waiter);
      if (at !== -1) waiters.splice(at, 1);
    };
  };

  const release: Pool["release"] = (connection, reusable) => {
    connection.handlers = undefined;
    if (!reusable || connection.socket.destroyed) {
      connection.socket.destroy();
      return;
    }
    const waiter = waiters.shift();
    if (waiter !== undefined) {
      waiter.ready(connection);
      return;
    }
    if (closing) {
      connection.socket.destroy();
      return;
    }
    connection.socket.setTimeout(options.keepAlive);
    idle.push(connection);
  };

  return {
    acquire,
    release,
    close: () => {
      closing = true;
      // Requests waiting for a connection are still served; only idle connections go now.
      for (const connection of idle.splice(0)) connection.socket.destroy();
    },
    destroy: () => {
      closing = true;
      for (const waiter of waiters.splice(0)) waiter.failed(new Error("the connection pool was closed"));
      for (const connection of open) connection.socket.destroy();
    },
    size: () => open.size,
  };
};
