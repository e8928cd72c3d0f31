/**
 * The request machinery under `KubeApi`: authenticated (vault, re-login on 401), rate-limited,
 * timed (on `Clock`) and retried (docs/behaviour/watching.md#api-client) requests over the `KubeTransport`, with the
 * client's headers and the error mapping of every response; plus the opening of streamed
 * requests (watches), which is authenticated but never retried.
 */
import { OperatorSettings } from "@kopf/settings";
import * as Effect from "effect/Effect";
import * as References from "effect/References";
import * as Result from "effect/Result";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import * as ApiMetrics from "../ApiMetrics.ts";
import * as ApiTracing from "../ApiTracing.ts";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import * as FailureDigest from "../FailureDigest.ts";
import type { ApiError, ApiResource } from "../KubeApi.ts";
import { KubeApiError } from "../KubeApiError.ts";
import type {
  KubeTransport,
  Method,
  StreamingResponse,
  TransportRequest,
  TransportResponse,
} from "../KubeTransport.ts";
import * as RateLimiter from "../RateLimiter.ts";
import * as Retries from "../Retries.ts";
import type { CredentialsVault, VaultItem } from "../Vault.ts";
import * as Deadline from "./deadline.ts";
import { type Location, type Query, resourcePath } from "./paths.ts";
import { parsed } from "./responseBody.ts";
import { type Shape, shapeFor, shapeOf } from "./shapes.ts";

export { parseJson, textOf } from "./responseBody.ts";
export { type Shape, shapeOf } from "./shapes.ts";

/** The version reported in the `User-Agent` header: the package's own (a test keeps them equal). */
export const VERSION = "0.1.0";

/** How the client behaves beyond the operator settings. */
export interface ClientOptions {
  /** Default `kopf/<version>`. */
  readonly userAgent?: string | undefined;
  /** A client-side rate limit for all requests (watch openings included); off by default. */
  readonly rateLimit?: RateLimiter.RateLimit | undefined;
  /** The field manager of server-side apply patches that do not name one. Default `kopf`. */
  readonly fieldManager?: string | undefined;
  /**
   * Seconds between summary lines of repeated failed attempts of one request kind (see
   * `FailureDigest`). Default 10.
   */
  readonly failureSummaryInterval?: number | undefined;
}

/** One request to send. */
export interface Outgoing {
  readonly method: Method;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  /** Its shape, when known beforehand (see {@link Requester.target}); else parsed from the path. */
  readonly shape?: Shape | undefined;
}

/** Seconds (or null/undefined for none) as milliseconds. */
export const millis = (seconds: number | null | undefined): number | undefined =>
  seconds === null || seconds === undefined ? undefined : seconds * 1000;

/** A request to a resource: its method, its path and its shape. */
export interface Target {
  readonly method: Method;
  readonly path: string;
  readonly shape: Shape;
}

/** The path and shape of a request to a resource, or why the API cannot serve it. */
const targetOf = (
  method: Method,
  resource: ApiResource,
  location: Location,
  query: Query | undefined,
): Result.Result<Target, KubeApiError> =>
  Result.map(resourcePath(resource, location, query), (path) => ({
    method,
    path,
    shape: shapeFor(method, resource, location, query),
  }));

export interface Requester {
  /** One authenticated, rate-limited, timed and retried request; error statuses fail. */
  readonly send: (outgoing: Outgoing) => Effect.Effect<TransportResponse, ApiError>;
  readonly sendJson: (outgoing: Outgoing) => Effect.Effect<unknown, ApiError>;
  /**
   * A request to a resource (its path and shape as {@link Requester.target} makes them, `extra`
   * its body) and the JSON of its response, an empty response as `{}`: the typed operations' one
   * step per request rather than one per stage. With `extra.unread`, the response's body is not
   * decoded at all (the answer is `undefined`; an error status still fails, with its `Status`).
   */
  readonly sendFor: (
    method: Method,
    resource: ApiResource,
    location: Location,
    query: Query | undefined,
    extra?: {
      readonly body?: unknown;
      readonly contentType?: string | undefined;
      readonly unread?: boolean | undefined;
    },
  ) => Effect.Effect<unknown, ApiError>;
  /** Open a streamed GET (authenticated and rate-limited, not retried); error statuses fail. */
  readonly open: (
    path: string,
    connectTimeout: number | undefined,
  ) => Effect.Effect<StreamingResponse, ApiError, Scope.Scope>;
  readonly pathOf: (
    resource: ApiResource,
    location: Location,
    query?: Query,
  ) => Effect.Effect<string, KubeApiError>;
  /** The path and shape of a request to a resource (the shape is remembered per kind of request). */
  readonly target: (
    method: Method,
    resource: ApiResource,
    location: Location,
    query?: Query,
  ) => Effect.Effect<Target, KubeApiError>;
  readonly vault: CredentialsVault["Service"];
}

export const makeRequester = (
  transport: KubeTransport["Service"],
  vault: CredentialsVault["Service"],
  options: ClientOptions,
): Requester => {
  const limiter = options.rateLimit ? RateLimiter.make(options.rateLimit) : RateLimiter.unlimited;
  // Without a rate limit, there is no wait to measure.
  const limited = limiter === RateLimiter.unlimited ? Effect.void : ApiMetrics.limited(limiter.acquire);
  const userAgent = options.userAgent ?? `kopf/${VERSION}`;
  const digest = FailureDigest.make(options.failureSummaryInterval ?? 10);

  // A transport that keeps deadlines gets each request's own; the others' requests race a timer.
  const deadlines = transport.deadlines === true;

  const transportRequest = (
    item: VaultItem,
    outgoing: Outgoing,
    connectTimeout: number | undefined,
    timeout?: number,
  ): TransportRequest => {
    const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent };
    const authorization = ConnectionInfo.authorization(item.info);
    if (authorization !== undefined) headers.authorization = authorization;
    if (outgoing.body !== undefined) headers["content-type"] = outgoing.contentType ?? "application/json";
    return {
      method: outgoing.method,
      path: outgoing.path,
      headers,
      // A request body lives until it is sent: Node.js's pool of small buffers serves it several
      // times cheaper than `TextEncoder`, which allocates a fresh `ArrayBuffer` for every call.
      body: outgoing.body === undefined ? undefined : Buffer.from(JSON.stringify(outgoing.body), "utf8"),
      connection: item.info,
      connectTimeout,
      timeout,
    };
  };

  const send = (outgoing: Outgoing): Effect.Effect<TransportResponse, ApiError> =>
    Effect.withFiber((fiber) => {
      const { networking } = fiber.getRef(OperatorSettings);
      const tracing = fiber.getRef(References.TracerEnabled);
      const shape = outgoing.shape ?? shapeOf(outgoing.method, outgoing.path);
      const total = millis(networking.requestTimeout);
      const connect = millis(networking.connectTimeout);
      const what = (): string => `${outgoing.method} ${outgoing.path}`;
      const sent = vault.withCredentials((item) => {
        // The request as the transport takes it: the same for every attempt with these credentials.
        const request = transportRequest(item, outgoing, connect, deadlines ? total : undefined);
        // The timeout bounds the exchange with the server (not a wait for the rate limit): kept by
        // the transport when it can, else a race with a timer on `Clock`.
        const exchange = Effect.suspend(() => transport.request(request));
        const timed = total === undefined || deadlines ? exchange : Deadline.raced(exchange, total, what);
        // An error status fails the attempt once it is counted by its status.
        const measured = ApiMetrics.measured(shape.labels, timed, KubeApiError.fromResponse);
        // One attempt: rate-limited, in its span (when tracing), measured (its exchange timed);
        // `failure` is the previous attempt's, counted as a retry of its reason.
        const attempt = (resends: number, failure: KubeApiError | undefined) => {
          const traced = tracing
            ? ApiTracing.traced(
                {
                  method: outgoing.method,
                  path: outgoing.path,
                  server: item.info.server,
                  labels: shape.labels,
                  resends,
                },
                measured,
              )
            : measured;
          const counted =
            failure === undefined
              ? traced
              : Effect.andThen(ApiMetrics.retried(shape.labels, failure.reason), traced);
          return limited === Effect.void ? counted : Effect.andThen(limited, counted);
        };
        // The first attempt goes alone; only a retryable failure builds the retry schedule, which
        // is then run from that failure on (so its attempts and log lines count it as the first).
        return Effect.catch(attempt(0, undefined), (first) => {
          if (!Retries.isRetryable(first)) return Effect.fail(first);
          let resends = 0;
          let failure: KubeApiError | undefined = first;
          const again = Effect.suspend(() => {
            if (resends === 0) {
              resends += 1;
              return Effect.fail(first);
            }
            return Effect.tapError(attempt(resends++, failure), (error) =>
              Effect.sync(() => {
                failure = error;
              }),
            );
          });
          const retryOptions: Retries.RetryOptions = {
            errorBackoffs: networking.errorBackoffs,
            enforceRetryAfter: networking.enforceRetryAfter,
          };
          return Retries.retrying(retryOptions, what(), (line) => digest.failed(shape.kind, line))(again);
        });
      });
      // A success after failures of its kind is logged; after any other, nothing is run.
      return Effect.flatMap(sent, (response) => {
        const recovered = digest.succeededNow(shape.kind);
        return recovered === undefined ? Effect.succeed(response) : Effect.as(recovered, response);
      });
    });

  const json = (outgoing: Outgoing, orEmpty: boolean): Effect.Effect<unknown, ApiError> =>
    Effect.flatMap(send(outgoing), (response) =>
      parsed(response, () => `${outgoing.method} ${outgoing.path}`, orEmpty),
    );

  const open = (path: string, connectTimeout: number | undefined) =>
    vault.withCredentials((item) =>
      limited.pipe(
        Effect.andThen(
          // The opening of a watch is measured like a request (its latency: until the headers are in).
          ApiTracing.traced(
            {
              method: "GET",
              server: item.info.server,
              path,
              labels: ApiMetrics.labelsOf("GET", path),
              resends: 0,
            },
            ApiMetrics.measured(
              ApiMetrics.labelsOf("GET", path),
              Effect.suspend(() =>
                transport.stream(transportRequest(item, { method: "GET", path }, connectTimeout)),
              ).pipe(
                Effect.flatMap((response) =>
                  response.status < 400
                    ? Effect.succeed(response)
                    : Stream.mkUint8Array(response.body).pipe(
                        Effect.orElseSucceed(() => new Uint8Array(0)),
                        Effect.flatMap((body) =>
                          Effect.fail(
                            KubeApiError.fromResponse({ ...response, body }) ??
                              KubeApiError.transport(`Unexpected status ${response.status}: GET ${path}`),
                          ),
                        ),
                      ),
                ),
              ),
            ),
          ),
        ),
      ),
    );

  return {
    send,
    sendJson: (outgoing) => json(outgoing, false),
    sendFor: (method, resource, location, query, extra) => {
      const target = targetOf(method, resource, location, query);
      if (Result.isFailure(target)) return Effect.fail(target.failure);
      const outgoing = { ...target.success, body: extra?.body, contentType: extra?.contentType };
      return extra?.unread === true ? Effect.asVoid(send(outgoing)) : json(outgoing, true);
    },
    open,
    pathOf: (resource, location, query) => Effect.fromResult(resourcePath(resource, location, query)),
    target: (method, resource, location, query) =>
      Effect.fromResult(targetOf(method, resource, location, query)),
    vault,
  };
};
