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
import { readFile } from "node:fs/promises";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as Semaphore from "effect/Semaphore";
import * as Stream from "effect/Stream";
import type { Dispatcher } from "undici";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import { KubeApiError } from "../KubeApiError.ts";
import { KubeTransport, type TransportRequest } from "../KubeTransport.ts";

/** Pool tuning. @category models */
export interface UndiciOptions {
  /** Milliseconds an idle connection is kept open. Default 60 000. */
  readonly keepAliveTimeout?: number | undefined;
  /** The most connections per server for watch streams; `null` for no limit (each open watch holds one). Default `null`. */
  readonly connections?: number | null | undefined;
  /**
   * The most connections per server for plain (non-streaming) requests; `null` for no limit.
   * Default 32: enough to keep an API server busy, few enough that a burst of thousands of
   * objects does not open (and keep alive) thousands of TLS connections.
   */
  readonly requestConnections?: number | null | undefined;
  /** Milliseconds to connect when a request does not say. Default 30 000. */
  readonly connectTimeout?: number | undefined;
  /**
   * How many pools (server × TLS identity × streams or requests) are kept; beyond that the least
   * recently used one is closed gracefully (its requests finish first). Credentials whose TLS
   * material changes (e.g. short-lived client certificates from an exec plugin) would otherwise
   * pile pools up. Default 32 (16 identities with both kinds of pool).
   */
  readonly maxPools?: number | undefined;
}

interface TlsMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

const timeoutCodes = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Map a failure of undici or of the socket below it to a `KubeApiError`.
 *
 * @example
 * ```ts
 * errorOf("GET https://h/api", Object.assign(new Error("x"), { code: "UND_ERR_CONNECT_TIMEOUT" })).reason // "Timeout"
 * ```
 */
export const errorOf = (what: string, error: unknown): KubeApiError => {
  const cause = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = cause?.code ?? cause?.cause?.code;
  const message = [code, cause?.message, cause?.cause?.message].filter((part) => !!part).join(": ");
  return code !== undefined && timeoutCodes.has(code)
    ? KubeApiError.timeout(`${what}: ${message}`, error)
    : KubeApiError.transport(`${what}: ${message || String(error)}`, error);
};

const readPem = (path: string, what: string) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf-8"),
    catch: (cause) =>
      KubeApiError.transport(
        `Cannot read the ${what} file ${path}: ${(cause as Error).message ?? String(cause)}`,
        cause,
      ),
  });

const decodePem = (data: string, what: string) =>
  Effect.fromResult(
    Result.mapError(ConnectionInfo.decodePem(data, what), (error) =>
      KubeApiError.transport(error.message, error),
    ),
  );

/** The TLS material of a connection info: files are read, data decoded (PEM or base64 PEM). */
const tlsOf = (info: ConnectionInfo.ConnectionInfo): Effect.Effect<TlsMaterial, KubeApiError> =>
  Effect.gen(function* () {
    const material: { ca?: string; cert?: string; key?: string } = {};
    if (info.caPath) material.ca = yield* readPem(info.caPath, "certificate authority");
    if (info.caData) material.ca = yield* decodePem(info.caData, "certificate-authority-data");
    if (info.certificatePath) material.cert = yield* readPem(info.certificatePath, "client certificate");
    if (info.certificateData)
      material.cert = yield* decodePem(info.certificateData, "client-certificate-data");
    if (info.privateKeyPath) material.key = yield* readPem(info.privateKeyPath, "client key");
    if (info.privateKeyData) material.key = yield* decodePem(info.privateKeyData, "client-key-data");
    return material;
  });

const lowerCaseHeaders = (
  headers: Record<string, string | ReadonlyArray<string> | undefined>,
): Record<string, string> => {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      result[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ");
  }
  return result;
};

const DEFAULT_REQUEST_CONNECTIONS = 32;

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
  // Insertion order is recency order: a used pool is moved to the end.
  const dispatchers = new Map<string, Dispatcher>();
  const maxPools = Math.max(1, options.maxPools ?? 32);
  const creating = yield* Semaphore.make(1);
  yield* Effect.addFinalizer(() =>
    Effect.promise(() =>
      Promise.allSettled([...dispatchers.values()].map((dispatcher) => dispatcher.destroy())),
    ),
  );

  const dispatcherFor = (info: ConnectionInfo.ConnectionInfo, connectTimeout: number, streaming: boolean) =>
    creating.withPermits(1)(
      Effect.gen(function* () {
        const key = `${ConnectionInfo.transportKey(info)}|${connectTimeout}|${streaming ? "stream" : "request"}`;
        const existing = dispatchers.get(key);
        if (existing !== undefined) {
          dispatchers.delete(key);
          dispatchers.set(key, existing);
          return existing;
        }
        const tls = yield* tlsOf(info);
        const connect = {
          ...tls,
          rejectUnauthorized: info.insecure !== true,
          ...(info.tlsServerName ? { servername: info.tlsServerName } : {}),
          timeout: connectTimeout,
        };
        const common = {
          keepAliveTimeout: options.keepAliveTimeout ?? 60_000,
          connections: streaming
            ? (options.connections ?? null)
            : options.requestConnections === undefined
              ? DEFAULT_REQUEST_CONNECTIONS
              : options.requestConnections,
          allowH2: false,
          pipelining: 1,
        };
        const dispatcher: Dispatcher = info.proxyUrl
          ? new ProxyAgent({ uri: info.proxyUrl, requestTls: connect, ...common })
          : info.trustEnv
            ? new EnvHttpProxyAgent({ requestTls: connect, ...common })
            : new Pool(new URL(info.server).origin, { connect, ...common });
        dispatchers.set(key, dispatcher);
        while (dispatchers.size > maxPools) {
          const [oldestKey, oldest] = dispatchers.entries().next().value!;
          dispatchers.delete(oldestKey);
          yield* Effect.promise(() => oldest.close().catch(() => undefined)).pipe(Effect.forkDetach);
        }
        return dispatcher;
      }),
    );

  const open = (request: TransportRequest, streaming: boolean) =>
    Effect.gen(function* () {
      const server = new URL(request.connection.server);
      const path = server.pathname.replace(/\/+$/, "") + request.path;
      const what = `${request.method} ${server.origin}${path}`;
      const dispatcher = yield* dispatcherFor(
        request.connection,
        request.connectTimeout ?? options.connectTimeout ?? 30_000,
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
