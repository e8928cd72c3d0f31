/**
 * The live `KubeTransport`: HTTP/1.1 over undici connection pools, one pool per server and TLS
 * identity, kept for the life of the layer — connections are reused across requests (keep-alive)
 * and never created per call. Watch streams and plain requests use separate pools: a stream holds
 * its connection for as long as it runs (so their pool has no limit), while plain requests share
 * at most `requestConnections` connections (a burst of objects queues its patches on them instead
 * of opening a TLS connection per object in flight). TLS verification is on unless the credentials say `insecure`;
 * `caPath`/`caData`, client certificates and `tlsServerName` come from the `ConnectionInfo`;
 * `proxyUrl` and `trustEnv` (proxy environment variables) are honoured.
 *
 * Timeouts: the connect timeout comes with each request (from the settings); the total timeout
 * of a request is applied by `KubeApi` on `Clock`; a streamed body has no idle timeout here (the
 * watcher's inactivity watchdog owns that).
 *
 * Edge code: sockets and files.
 */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import type { Dispatcher } from "undici";
import type * as ConnectionInfo from "../ConnectionInfo.ts";
import { KubeTransport, type TransportRequest } from "../KubeTransport.ts";
import * as Pools from "./internal/pools.ts";
import { targetOf } from "./internal/requestTarget.ts";
import { lowerCaseHeaders } from "./internal/responseHeaders.ts";
import { secureContextOf } from "./internal/tlsMaterial.ts";
import { errorOf } from "./internal/transportFailure.ts";
import {
  connectionsOf,
  connectTimeoutOf,
  keepAliveOf,
  maxPoolsOf,
  poolKey,
  type TransportOptions,
} from "./TransportOptions.ts";

export { errorOf };

/** Pool tuning (the same as {@link TransportOptions}). @category models */
export type UndiciOptions = TransportOptions;

const connectionReleased = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void));
  return Effect.sync(() => clearImmediate(handle));
});

/**
 * Build the live transport; pools are closed when the scope closes.
 *
 * @example
 * ```ts
 * import * as Layer from "effect/Layer";
 * import { KubeApi, UndiciTransport } from "@kopf/client"
 * const api = KubeApi.layer().pipe(Layer.provide(UndiciTransport.layer()))
 * ```
 */
export const make = Effect.fnUntraced(function* (options: UndiciOptions = {}) {
  // Loaded here rather than at import time: importing @kopf/client should not cost undici's load
  // time to code that never builds the live transport (in-process tests, pure consumers).
  const { EnvHttpProxyAgent, Pool, ProxyAgent } = yield* Effect.promise(() => import("undici"));
  const pools = yield* Pools.make<Dispatcher>(maxPoolsOf(options), {
    close: (dispatcher) => dispatcher.close(),
    destroy: (dispatcher) => dispatcher.destroy(),
  });

  const dispatcherFor = (info: ConnectionInfo.ConnectionInfo, connectTimeout: number, streaming: boolean) =>
    pools.get(
      poolKey(info, connectTimeout, streaming),
      Effect.gen(function* () {
        // The proxy agents take the server's TLS settings for the tunnelled connections.
        const secure = new URL(info.server).protocol === "https:";
        const secureContext = secure ? yield* secureContextOf(info) : undefined;
        const connect = {
          ...(secureContext === undefined ? {} : { secureContext }),
          rejectUnauthorized: info.insecure !== true,
          ...(info.tlsServerName ? { servername: info.tlsServerName } : {}),
          timeout: connectTimeout,
        };
        const common = {
          keepAliveTimeout: keepAliveOf(options),
          connections: connectionsOf(options, streaming),
          allowH2: false,
          pipelining: 1,
        };
        return info.proxyUrl
          ? new ProxyAgent({ uri: info.proxyUrl, requestTls: connect, ...common })
          : info.trustEnv
            ? new EnvHttpProxyAgent({ requestTls: connect, ...common })
            : new Pool(new URL(info.server).origin, { connect, ...common });
      }),
    );

  const open = (request: TransportRequest, streaming: boolean) =>
    Effect.gen(function* () {
      const { server, path, what } = targetOf(request);
      const dispatcher = yield* dispatcherFor(
        request.connection,
        connectTimeoutOf(request, options),
        streaming,
      );
      const response = yield* Effect.tryPromise({
        try: (signal) =>
          dispatcher.request({
            origin: server.origin,
            path,
            method: request.method,
            headers: request.headers,
            body: request.body === undefined ? null : request.body,
            signal,
            headersTimeout: 0,
            bodyTimeout: 0,
            // Keep watch streams from blocking other requests on the same connection.
            blocking: streaming,
          }),
        catch: (error) => errorOf(what, error),
      });
      return { what, response };
    });

  /**
   * Closes a response body. Destroying a body that was not read to its end makes undici emit an
   * abort error on it; with no listener (e.g. a refused watch whose body nobody reads), that would
   * be an uncaught exception of the whole process.
   */
  const discard = (body: Dispatcher.ResponseData["body"]) =>
    Effect.sync(() => {
      body.on("error", () => undefined);
      body.destroy();
    });

  const request: KubeTransport["Service"]["request"] = (request) =>
    Effect.gen(function* () {
      const { what, response } = yield* open(request, false);
      const body = yield* Effect.tryPromise({
        try: () => response.body.arrayBuffer(),
        catch: (error) => errorOf(what, error),
      }).pipe(Effect.onInterrupt(() => discard(response.body)));
      // undici frees the connection one macrotask after the body has ended: wait for it, so that
      // a request issued right after this one reuses the connection instead of opening another.
      yield* connectionReleased;
      return {
        status: response.statusCode,
        headers: lowerCaseHeaders(response.headers),
        body: new Uint8Array(body),
      };
    });

  const stream: KubeTransport["Service"]["stream"] = (request) =>
    Effect.gen(function* () {
      const { what, response } = yield* Effect.acquireRelease(open(request, true), ({ response }) =>
        discard(response.body),
      );
      return {
        status: response.statusCode,
        headers: lowerCaseHeaders(response.headers),
        body: Stream.fromAsyncIterable(response.body as AsyncIterable<Uint8Array>, (error) =>
          errorOf(what, error),
        ),
      };
    });

  return KubeTransport.of({ request, stream });
});

/** The live transport as a layer (scoped: closing it closes every pool and open stream). */
export const layer = (options: UndiciOptions = {}): Layer.Layer<KubeTransport> =>
  Layer.effect(KubeTransport, make(options));
