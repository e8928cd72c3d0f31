/**
 * The request machinery under `KubeApi`: authenticated (vault, re-login on 401), rate-limited,
 * timed (on `Clock`) and retried (docs/behaviour/watching.md#api-client) requests over the `KubeTransport`, with the
 * client's headers and the error mapping of every response; plus the opening of streamed
 * requests (watches), which is authenticated but never retried.
 */
import { OperatorSettings } from "@kopf/settings";
import * as Effect from "effect/Effect";
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
import { type Location, type Query, resourcePath } from "./paths.ts";

/** The version reported in the `User-Agent` header. */
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
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Seconds (or null/undefined for none) as milliseconds. */
export const millis = (seconds: number | null | undefined): number | undefined =>
  seconds === null || seconds === undefined ? undefined : seconds * 1000;

/** The JSON of a response body (`undefined` when empty). */
export const parseJson = (
  response: TransportResponse,
  what: string,
): Effect.Effect<unknown, KubeApiError> => {
  const text = decoder.decode(response.body);
  if (text.trim() === "") return Effect.succeed(undefined);
  return Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (cause) =>
      (response.headers["content-type"] ?? "").includes("json")
        ? KubeApiError.transport(`Malformed JSON in the response to ${what}.`, cause)
        : KubeApiError.transport(`Not JSON in the response to ${what}: ${text.slice(0, 80)}`, cause),
  });
};

/** The text of a response body. */
export const textOf = (response: TransportResponse): string => decoder.decode(response.body);

export interface Requester {
  /** One authenticated, rate-limited, timed and retried request; error statuses fail. */
  readonly send: (outgoing: Outgoing) => Effect.Effect<TransportResponse, ApiError>;
  readonly sendJson: (outgoing: Outgoing) => Effect.Effect<unknown, ApiError>;
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
  readonly vault: CredentialsVault["Service"];
}

export const makeRequester = (
  transport: KubeTransport["Service"],
  vault: CredentialsVault["Service"],
  options: ClientOptions,
): Requester => {
  const limiter = options.rateLimit ? RateLimiter.make(options.rateLimit) : RateLimiter.unlimited;
  const userAgent = options.userAgent ?? `kopf/${VERSION}`;
  const digest = FailureDigest.make(options.failureSummaryInterval ?? 10);

  const transportRequest = (
    item: VaultItem,
    outgoing: Outgoing,
    connectTimeout: number | undefined,
  ): TransportRequest => {
    const headers: Record<string, string> = { accept: "application/json", "user-agent": userAgent };
    const authorization = ConnectionInfo.authorization(item.info);
    if (authorization !== undefined) headers.authorization = authorization;
    if (outgoing.body !== undefined) headers["content-type"] = outgoing.contentType ?? "application/json";
    return {
      method: outgoing.method,
      path: outgoing.path,
      headers,
      body: outgoing.body === undefined ? undefined : encoder.encode(JSON.stringify(outgoing.body)),
      connection: item.info,
      connectTimeout,
    };
  };

  const send = (outgoing: Outgoing): Effect.Effect<TransportResponse, ApiError> =>
    Effect.gen(function* () {
      const { networking } = yield* OperatorSettings;
      const what = `${outgoing.method} ${outgoing.path}`;
      const kind = FailureDigest.requestKind(outgoing.method, outgoing.path);
      const total = millis(networking.requestTimeout);
      const connect = millis(networking.connectTimeout);
      const retryOptions: Retries.RetryOptions = {
        errorBackoffs: networking.errorBackoffs,
        enforceRetryAfter: networking.enforceRetryAfter,
      };
      const labels = ApiMetrics.labelsOf(outgoing.method, outgoing.path);
      return yield* vault
        .withCredentials((item) => {
          let failure: KubeApiError | undefined; // the last attempt's, named when it is retried
          let resends = 0;
          const once = ApiMetrics.limited(limiter.acquire).pipe(
            Effect.andThen(
              Effect.suspend(() =>
                failure === undefined ? Effect.void : ApiMetrics.retried(labels, failure.reason),
              ),
            ),
            Effect.andThen(
              Effect.suspend(() =>
                ApiTracing.traced(
                  { ...outgoing, server: item.info.server, labels, resends: resends++ },
                  ApiMetrics.measured(
                    labels,
                    transport.request(transportRequest(item, outgoing, connect)).pipe(
                      Effect.flatMap((response) => {
                        const error = KubeApiError.fromResponse(response);
                        return error === undefined ? Effect.succeed(response) : Effect.fail(error);
                      }),
                    ),
                  ),
                ),
              ),
            ),
            Effect.tapError((error) => Effect.sync(() => (failure = error))),
          );
          const timed =
            total === undefined
              ? once
              : once.pipe(
                  Effect.timeoutOrElse({
                    duration: total,
                    orElse: () =>
                      Effect.fail(KubeApiError.timeout(`No response within ${total / 1000}s: ${what}`)),
                  }),
                );
          return Retries.retrying(retryOptions, what, (line) => digest.failed(kind, line))(timed);
        })
        .pipe(Effect.tap(() => digest.succeeded(kind)));
    });

  const open = (path: string, connectTimeout: number | undefined) =>
    vault.withCredentials((item) =>
      ApiMetrics.limited(limiter.acquire).pipe(
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
    sendJson: (outgoing) =>
      Effect.flatMap(send(outgoing), (response) =>
        parseJson(response, `${outgoing.method} ${outgoing.path}`),
      ),
    open,
    pathOf: (resource, location, query) => Effect.fromResult(resourcePath(resource, location, query)),
    vault,
  };
};
