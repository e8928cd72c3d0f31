/**
 * The live `KubeTransport`: HTTP/1.1 over Node.js's own client (`node:https`, `node:http`), one
 * keep-alive agent per server and TLS identity, kept for the life of the layer. Watch streams
 * and plain requests use separate agents: a stream holds its connection for as long as it runs
 * (no limit), while plain requests share at most `requestConnections` connections (a burst of
 * objects queues its patches on them instead of opening a TLS connection per object in flight).
 * TLS verification is on unless the credentials say `insecure`; `caPath`/`caData`, client
 * certificates and `tlsServerName` come from the `ConnectionInfo`. Each agent builds its TLS
 * context once (the certificate authority, client certificate and key parsed once) and every
 * connection it opens shares it: Node.js's agents otherwise build one per connection, which a
 * burst opening dozens of connections pays for in CPU and in memory for as long as they live.
 *
 * Why Node.js's client and not undici: its HTTP parser is native code inside the `node` binary,
 * while undici's is WebAssembly compiled at start; measured on one machine, a process that made
 * a few HTTPS requests held ~59 MiB with `node:https` and ~75 MiB with undici, and spent ~210 µs
 * of CPU per request against ~280 (see docs/performance.md). Connections through a proxy
 * (`proxyUrl`, or `trustEnv` and the proxy environment variables) go through undici's proxy
 * agents instead (`UndiciTransport`), loaded only when such credentials first send a request.
 *
 * Timeouts: the connect timeout (TCP and TLS handshake) comes with each request; the total
 * timeout of a request is applied by `KubeApi` on `Clock`; a streamed body has no idle timeout
 * here (the watcher's inactivity watchdog owns that).
 *
 * Edge code: sockets and files.
 */
import type * as Http from "node:http";
import type * as Https from "node:https";
import type { Socket } from "node:net";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import type * as ConnectionInfo from "../ConnectionInfo.ts";
import type { KubeApiError } from "../KubeApiError.ts";
import { KubeTransport, type TransportRequest } from "../KubeTransport.ts";
import { rememberingNames } from "./internal/agentName.ts";
import * as Pools from "./internal/pools.ts";
import { type RequestTarget, targetOf } from "./internal/requestTarget.ts";
import { lowerCaseHeaders } from "./internal/responseHeaders.ts";
import { secureContextOf } from "./internal/tlsMaterial.ts";
import { CONNECT_TIMEOUT_CODE, errorOf } from "./internal/transportFailure.ts";
import {
  connectionsOf,
  connectTimeoutOf,
  keepAliveOf,
  maxPoolsOf,
  poolKey,
  type TransportOptions,
} from "./TransportOptions.ts";
import * as UndiciTransport from "./UndiciTransport.ts";

/** What one request needs: the module that speaks the server's scheme, and its agent. */
interface Route {
  readonly client: typeof Http | typeof Https;
  readonly agent: Http.Agent;
}

/**
 * Fails a new connection that is not ready (connected, and for TLS through its handshake)
 * within `timeout` ms. Reused connections are ready already, so only new ones are watched.
 */
const limitConnecting = (agent: Http.Agent, secure: boolean, timeout: number) => {
  const create = (agent as unknown as { createConnection: (...args: Array<unknown>) => Socket })
    .createConnection;
  (agent as unknown as { createConnection: (...args: Array<unknown>) => Socket }).createConnection = (
    ...args
  ) => {
    const socket = create.apply(agent, args);
    const timer = setTimeout(() => {
      socket.destroy(
        Object.assign(new Error(`no connection within ${timeout} ms`), { code: CONNECT_TIMEOUT_CODE }),
      );
    }, timeout);
    timer.unref();
    const ready = () => clearTimeout(timer);
    socket.once(secure ? "secureConnect" : "connect", ready);
    socket.once("close", ready);
    return socket;
  };
};

/** Lets an agent go once what it carries is done: idle connections close, busy ones when freed. */
const closeGracefully = (agent: Http.Agent) => {
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets))
    for (const socket of sockets ?? []) socket.destroy();
};

/** Sends the request; completes with the response once its headers are in. */
const send = (
  route: Route,
  request: TransportRequest,
  target: RequestTarget,
): Effect.Effect<Http.IncomingMessage, KubeApiError> =>
  Effect.callback<Http.IncomingMessage, KubeApiError>((resume) => {
    let settled = false;
    const outgoing = route.client.request({
      hostname: target.server.hostname,
      port: target.server.port,
      path: target.path,
      method: request.method,
      // The length is said for every body: Node.js frames a body of its own accord only for the
      // methods that usually have one, and sends a DELETE's (its options) unframed, which an API
      // server reads as the start of the next request (400 Bad Request).
      headers:
        request.body === undefined
          ? request.headers
          : { ...request.headers, "content-length": String(request.body.byteLength) },
      agent: route.agent,
    });
    outgoing.on("error", (error) => {
      if (settled) return;
      settled = true;
      resume(Effect.fail(errorOf(target.what, error)));
    });
    outgoing.once("response", (response) => {
      settled = true;
      // Errors of the body arrive on the response (and whoever reads it); none may go uncaught.
      response.on("error", () => undefined);
      resume(Effect.succeed(response));
    });
    outgoing.end(request.body);
    return Effect.sync(() => {
      settled = true;
      outgoing.destroy();
    });
  });

/** Reads a whole response body. */
const readAll = (response: Http.IncomingMessage, what: string): Effect.Effect<Uint8Array, KubeApiError> =>
  Effect.callback<Uint8Array, KubeApiError>((resume) => {
    const chunks: Array<Buffer> = [];
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      resume(Effect.fail(errorOf(what, error)));
    };
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.once("end", () => {
      settled = true;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      // Node.js's agent frees the connection on a tick after the body's end: complete after it, so
      // that a request sent right after this one reuses the connection instead of opening another.
      setImmediate(() => resume(Effect.succeed(body)));
    });
    response.on("error", fail);
    response.once("close", () => {
      if (!response.complete)
        fail(
          Object.assign(new Error("the connection closed before the response ended"), { code: "ECONNRESET" }),
        );
    });
    return Effect.sync(() => {
      settled = true;
      response.destroy();
    });
  });

/**
 * Build the live transport; agents are destroyed when the scope closes.
 *
 * @example
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { KubeApi, NodeTransport } from "@kopf/client"
 * const api = KubeApi.layer().pipe(Layer.provide(NodeTransport.layer()))
 * ```
 */
export const make = Effect.fnUntraced(function* (options: TransportOptions = {}) {
  // Taken from the built-in modules rather than imported: an ES-module import of `node:http` reads
  // every export, and its WebSocket-family getters load Node.js's own fetch implementation.
  const http = process.getBuiltinModule("node:http");
  const https = process.getBuiltinModule("node:https");
  const pools = yield* Pools.make<Http.Agent>(maxPoolsOf(options), {
    close: closeGracefully,
    destroy: (agent) => agent.destroy(),
  });
  // Credentials with a proxy go through undici's proxy agents, made on first use in this scope.
  const scope = yield* Effect.scope;
  const proxied = yield* Effect.cached(UndiciTransport.make(options).pipe(Scope.provide(scope)));

  /**
   * A new keep-alive agent for a server (made when its pool is missing, not at every request); a
   * TLS one shares one TLS context among its connections.
   */
  const agentOf = (
    info: ConnectionInfo.ConnectionInfo,
    secure: boolean,
    streaming: boolean,
  ): Effect.Effect<Http.Agent, KubeApiError> =>
    Effect.suspend(() => {
      const connections = connectionsOf(options, streaming);
      const common = {
        keepAlive: true,
        timeout: keepAliveOf(options),
        maxSockets: connections ?? Number.POSITIVE_INFINITY,
        maxFreeSockets: connections ?? 256,
        scheduling: "lifo" as const,
      };
      return secure
        ? Effect.map(secureContextOf(info), (secureContext) =>
            rememberingNames(
              new https.Agent({
                ...common,
                secureContext,
                rejectUnauthorized: info.insecure !== true,
                ...(info.tlsServerName ? { servername: info.tlsServerName } : {}),
              }),
            ),
          )
        : Effect.sync(() => rememberingNames(new http.Agent(common)));
    });

  const routeOf = (request: TransportRequest, secure: boolean, streaming: boolean) => {
    const info = request.connection;
    const connectTimeout = connectTimeoutOf(request, options);
    return Effect.map(
      pools.get(
        poolKey(info, connectTimeout, streaming),
        Effect.map(agentOf(info, secure, streaming), (agent) => {
          limitConnecting(agent, secure, connectTimeout);
          return agent;
        }),
      ),
      (agent): Route => ({ client: secure ? https : http, agent }),
    );
  };

  const open = (request: TransportRequest, streaming: boolean) => {
    const target = targetOf(request);
    return Effect.flatMap(routeOf(request, target.server.protocol === "https:", streaming), (route) =>
      Effect.map(send(route, request, target), (response) => ({ target, response })),
    );
  };

  const viaProxy = (info: ConnectionInfo.ConnectionInfo) => !!info.proxyUrl || info.trustEnv;

  const request: KubeTransport["Service"]["request"] = (request) =>
    viaProxy(request.connection)
      ? Effect.flatMap(proxied, (transport) => transport.request(request))
      : Effect.flatMap(open(request, false), ({ target, response }) =>
          Effect.map(readAll(response, target.what), (body) => ({
            status: response.statusCode ?? 0,
            headers: lowerCaseHeaders(response.headers),
            body,
          })),
        );

  const stream: KubeTransport["Service"]["stream"] = (request) =>
    viaProxy(request.connection)
      ? Effect.flatMap(proxied, (transport) => transport.stream(request))
      : Effect.map(
          Effect.acquireRelease(open(request, true), ({ response }) => Effect.sync(() => response.destroy())),
          ({ target, response }) => ({
            status: response.statusCode ?? 0,
            headers: lowerCaseHeaders(response.headers),
            body: Stream.fromAsyncIterable(response as AsyncIterable<Uint8Array>, (error) =>
              errorOf(target.what, error),
            ),
          }),
        );

  return KubeTransport.of({ request, stream });
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
