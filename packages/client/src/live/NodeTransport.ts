/**
 * The live `KubeTransport`: HTTP/1.1 over Node.js's own sockets and TLS, one set of keep-alive
 * connections per server and TLS identity, kept for the life of the layer.
 *
 * The request's bytes are written in one go on a pooled connection and the response is read by
 * the transport's own HTTP/1.1 reader (`internal/http1*.ts`): Node.js's `http` client spent ~3×
 * the CPU per request (its request and response objects, streams and agent bookkeeping around
 * its native parser), and an operator makes two or three requests per object and reads as many
 * watch events (see docs/performance.md).
 * - Plain requests share at most `requestConnections` connections per server (a burst of
 *   objects queues its patches on them instead of opening a TLS connection per object in
 *   flight).
 * - Watch streams have a pool of their own: a stream holds its connection for as long as it
 *   runs (no limit by default); its body is pulled as it arrives, the socket paused while the
 *   consumer falls behind.
 *
 * TLS verification is on unless the credentials say `insecure`; `caPath`/`caData`, client
 * certificates and `tlsServerName` come from the `ConnectionInfo`. Each pool builds its TLS
 * context once (the certificate authority, client certificate and key parsed once) and every
 * connection it opens shares it: Node.js's agents otherwise build one per connection, which a
 * burst opening dozens of connections pays for in CPU and in memory for as long as they live.
 * The pools of one server and TLS identity share its latest TLS session, so that a new connection
 * resumes it instead of a full handshake (a burst's connections resume the session the watch's
 * connection was given at start; the server's certificate is not sent or checked again).
 *
 * Why not undici: its HTTP parser is WebAssembly compiled at start; measured on one machine, a
 * process that made a few HTTPS requests held ~59 MiB with `node:https` and ~75 MiB with undici,
 * and spent ~280 µs of CPU per request against ~210 with `node:https`. Connections
 * through a proxy (`proxyUrl`, or `trustEnv` and the proxy environment variables) go through
 * undici's proxy agents instead (`UndiciTransport`), loaded only when such credentials first
 * send a request.
 *
 * Timeouts: the connect timeout (TCP and TLS handshake) and the total timeout of a request
 * (`networking.requestTimeout`, from the request being sent to its response's end: past it, the
 * connection is closed and the request fails with a `Timeout`) come with each request, so the
 * client runs no timer fiber per request (`deadlines`); a streamed body has no idle timeout here
 * (the watcher's inactivity watchdog owns that).
 *
 * Edge code: sockets, files and timers.
 */
import { isIP } from "node:net";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import * as Deadline from "../internal/deadline.ts";
import type { KubeApiError } from "../KubeApiError.ts";
import { KubeTransport } from "../KubeTransport.ts";
import * as Http1Exchange from "./internal/http1Exchange.ts";
import * as Http1Pool from "./internal/http1Pool.ts";
import * as Http1Stream from "./internal/http1Stream.ts";
import * as Pools from "./internal/pools.ts";
import { type RequestTarget, targetOf } from "./internal/requestTarget.ts";
import { secureContextOf } from "./internal/tlsMaterial.ts";
import {
  connectionsOf,
  connectTimeoutOf,
  keepAliveOf,
  maxPoolsOf,
  poolKey,
  type TransportOptions,
} from "./TransportOptions.ts";
import * as UndiciTransport from "./UndiciTransport.ts";

/**
 * Build the live transport; connections are closed when the scope closes.
 *
 * @example
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { KubeApi, NodeTransport } from "@kopf/client"
 * const api = KubeApi.layer().pipe(Layer.provide(NodeTransport.layer()))
 * ```
 */
export const make = Effect.fnUntraced(function* (options: TransportOptions = {}) {
  const pools = yield* Pools.make<Http1Pool.Pool>(maxPoolsOf(options), {
    close: (pool) => pool.close(),
    destroy: (pool) => pool.destroy(),
  });
  // Credentials with a proxy go through undici's proxy agents, made on first use in this scope.
  const scope = yield* Effect.scope;
  const proxied = yield* Effect.cached(UndiciTransport.make(options).pipe(Scope.provide(scope)));
  // The TLS sessions by server and TLS identity, shared by its pools (as many as pools are kept).
  const sessions = new Map<string, Http1Pool.TlsSessions>();
  const sessionsOf = (info: ConnectionInfo.ConnectionInfo): Http1Pool.TlsSessions => {
    const key = ConnectionInfo.transportKey(info);
    const known = sessions.get(key);
    if (known !== undefined) return known;
    const made: Http1Pool.TlsSessions = { latest: undefined };
    sessions.set(key, made);
    if (sessions.size > maxPoolsOf(options)) sessions.delete(sessions.keys().next().value as string);
    return made;
  };

  /**
   * The pool of a server's requests or streams (made when missing, not at every request); a TLS
   * one shares one TLS context among its connections.
   */
  const poolOf = (
    info: ConnectionInfo.ConnectionInfo,
    target: RequestTarget,
    connectTimeout: number,
    streaming: boolean,
  ): Effect.Effect<Http1Pool.Pool, KubeApiError> =>
    pools.get(
      poolKey(info, connectTimeout, streaming),
      Effect.suspend(() => {
        const secure = target.server.protocol === "https:";
        const hostname = target.server.hostname;
        return Effect.map(secure ? secureContextOf(info) : Effect.succeed(undefined), (secureContext) =>
          Http1Pool.make(
            {
              secure,
              hostname,
              port: target.server.port,
              // As Node.js's agents: SNI and the verified name are the host's, not for an address.
              servername: info.tlsServerName || (isIP(hostname) === 0 ? hostname : undefined),
              secureContext,
              rejectUnauthorized: info.insecure !== true,
              sessions: secure ? sessionsOf(info) : undefined,
            },
            {
              max: connectionsOf(options, streaming) ?? Number.POSITIVE_INFINITY,
              keepAlive: keepAliveOf(options),
            },
          ),
        );
      }),
    );

  const viaProxy = (info: ConnectionInfo.ConnectionInfo) => !!info.proxyUrl || info.trustEnv;

  const request: KubeTransport["Service"]["request"] = (request) => {
    if (viaProxy(request.connection))
      return Effect.flatMap(proxied, (transport) =>
        request.timeout === undefined
          ? transport.request(request)
          : Deadline.raced(
              transport.request(request),
              request.timeout,
              () => `${request.method} ${request.path}`,
            ),
      );
    const target = targetOf(request);
    const connectTimeout = connectTimeoutOf(request, options);
    // The server's pool is made already but for the first requests: then no step to get it.
    const made = pools.getNow(poolKey(request.connection, connectTimeout, false));
    if (made !== undefined) return Http1Exchange.send(made, request, target, connectTimeout);
    return Effect.flatMap(poolOf(request.connection, target, connectTimeout, false), (pool) =>
      Http1Exchange.send(pool, request, target, connectTimeout),
    );
  };

  const stream: KubeTransport["Service"]["stream"] = (request) => {
    if (viaProxy(request.connection))
      return Effect.flatMap(proxied, (transport) => transport.stream(request));
    const target = targetOf(request);
    const connectTimeout = connectTimeoutOf(request, options);
    return Effect.flatMap(poolOf(request.connection, target, connectTimeout, true), (pool) =>
      Http1Stream.open(pool, request, target, connectTimeout),
    );
  };

  // Direct requests keep their deadlines on the connection (`Http1Exchange`), proxied ones by a race.
  return KubeTransport.of({ request, stream, deadlines: true });
});

/**
 * The live transport as a layer (scoped: closing it closes every connection and open stream).
 *
 * @example
 * ```ts
 * import { KubeClient, NodeTransport } from "@kopf/client"
 * const transport = NodeTransport.layer({ requestConnections: 8 })
 * ```
 */
export const layer = (options: TransportOptions = {}): Layer.Layer<KubeTransport> =>
  Layer.effect(KubeTransport, make(options));
