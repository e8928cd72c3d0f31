/**
 * The transport port of the client: one HTTP request to an API server → one response, complete
 * or with a streamed body. `KubeApi` builds requests (paths, headers, auth, retries) on top of
 * it; implementations only move bytes.
 *
 * Implementations: the live one over Node.js sockets (`live/NodeTransport.ts`; proxied
 * credentials go through undici, `live/UndiciTransport.ts`) and the emulator's in-process one in
 * `@kopf/emulator` (no sockets). Tests can script their own with {@link KubeTransport.of}.
 */
import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import type * as Stream from "effect/Stream";
import type { ConnectionInfo } from "./ConnectionInfo.ts";
import type { KubeApiError } from "./KubeApiError.ts";

/** The HTTP methods the client uses. @category models */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request. @category models */
export interface TransportRequest {
  readonly method: Method;
  /** The path and query relative to the server root, e.g. `/api/v1/namespaces/ns1/pods?limit=5`. */
  readonly path: string;
  /** Header names in lower case; `authorization` included when the credentials have one. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | undefined;
  /** The server and identity: TLS material and proxy settings come from here. */
  readonly connection: ConnectionInfo;
  /** Milliseconds to establish a connection; undefined for the transport's default. */
  readonly connectTimeout?: number | undefined;
  /**
   * Milliseconds for the whole exchange (`networking.requestTimeout`), given only to a transport
   * that keeps such deadlines itself (`deadlines`): past it, `request` fails with a `Timeout`.
   */
  readonly timeout?: number | undefined;
}

/** A complete response; header names in lower case. @category models */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** A response whose body is read as it arrives (watch streams). @category models */
export interface StreamingResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body's chunks; fails with a `TransportError` if the connection breaks mid-way. */
  readonly body: Stream.Stream<Uint8Array, KubeApiError>;
}

/**
 * The transport service.
 *
 * - `request` reads the whole body; interrupting it aborts the request. Only failures without a
 *   response fail the effect (`TransportError`, `Timeout`); error statuses are responses.
 * - `stream` opens a request and returns once the headers are in; the connection stays open
 *   until the body ends or the scope closes (whichever comes first).
 * - `deadlines`: whether `request` keeps a request's `timeout` itself. The client then gives each
 *   request its deadline; for other transports it races every request against a timer (two more
 *   fibers and a timer per request).
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
 * import { KubeTransport } from "@kopf/client"
 * const fake = Layer.succeed(KubeTransport, KubeTransport.of({
 *   request: () => Effect.succeed({ status: 200, headers: {}, body: new TextEncoder().encode("{}") }),
 *   stream: () => Effect.succeed({ status: 200, headers: {}, body: Stream.empty }),
 * }))
 * ```
 * @category services
 */
export class KubeTransport extends Context.Service<
  KubeTransport,
  {
    readonly request: (request: TransportRequest) => Effect.Effect<TransportResponse, KubeApiError>;
    readonly stream: (
      request: TransportRequest,
    ) => Effect.Effect<StreamingResponse, KubeApiError, Scope.Scope>;
    readonly deadlines?: boolean | undefined;
  }
>()("@kopf/client/KubeTransport") {}
