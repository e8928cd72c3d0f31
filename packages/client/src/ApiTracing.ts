/**
 * The client's trace spans: one client span per attempt of an API request, named by its HTTP
 * method and carrying OpenTelemetry's HTTP semantic conventions (`http.request.method`,
 * `url.full`, `server.address`, `server.port`, `http.response.status_code`, `error.type`,
 * `http.request.resend_count` for retries) plus the request's Kubernetes verb and resource.
 * The spans capture no stack trace (it would point here every time, at a CPU cost per request).
 * With Effect's tracer turned off (`References.TracerEnabled`, which the operator sets when it
 * exports no traces), no span is made at all: a span that goes nowhere costs allocations and
 * context switches on every request.
 */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as References from "effect/References";
import type { RequestLabels } from "./ApiMetrics.ts";
import type { KubeApiError } from "./KubeApiError.ts";
import type { Method } from "./KubeTransport.ts";

/** One attempt of a request. */
export interface Attempt {
  readonly method: Method;
  /** The server's URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** The path and query. */
  readonly path: string;
  readonly labels: RequestLabels;
  /** Attempts made before this one. */
  readonly resends: number;
}

/** What the spans tell of a server: its URL without trailing slashes, its host and port. */
interface ServerInfo {
  readonly base: string;
  readonly address: { readonly host: string; readonly port: number } | undefined;
}

/** A server's URL base, host and port, parsed once per server (an operator talks to one or a few). */
const serverInfo = (server: string): ServerInfo => {
  const known = servers.get(server);
  if (known !== undefined) return known;
  let address: ServerInfo["address"];
  try {
    const url = new URL(server);
    address = {
      host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
    };
  } catch {
    // A server that is not a URL has no address to tell.
  }
  const info = { base: server.replace(/\/+$/, ""), address };
  if (servers.size >= 64) servers.clear();
  servers.set(server, info);
  return info;
};
const servers = new Map<string, ServerInfo>();

/**
 * The span attributes of an attempt before it is sent.
 *
 * @example
 * attributesOf({ method: "GET", server: "https://k8s:6443", path: "/api/v1/pods", labels: { verb: "list", resource: "pods.v1" }, resends: 0 })
 * // { "http.request.method": "GET", "url.full": "https://k8s:6443/api/v1/pods", "server.address": "k8s", "server.port": 6443, ... }
 */
export const attributesOf = (attempt: Attempt): Record<string, string | number> => {
  const { base, address } = serverInfo(attempt.server);
  const attributes: Record<string, string | number> = {
    "http.request.method": attempt.method,
    "url.full": `${base}${attempt.path}`,
    "kopf.api.verb": attempt.labels.verb,
    "kopf.resource": attempt.labels.resource,
  };
  if (address !== undefined) {
    attributes["server.address"] = address.host;
    attributes["server.port"] = address.port;
  }
  if (attempt.resends > 0) attributes["http.request.resend_count"] = attempt.resends;
  return attributes;
};

/**
 * Runs one attempt in its client span; the status code (or the error's reason) is recorded
 * when it ends.
 *
 * @example
 * ```ts
 * const response = yield* ApiTracing.traced(attempt, transport.request(request))
 * ```
 */
export const traced = <A extends { readonly status: number }, R>(
  attempt: Attempt,
  effect: Effect.Effect<A, KubeApiError, R>,
): Effect.Effect<A, KubeApiError, R> =>
  Effect.withFiber((fiber) => (fiber.getRef(References.TracerEnabled) ? inSpan(attempt, effect) : effect));

const inSpan = <A extends { readonly status: number }, R>(
  attempt: Attempt,
  effect: Effect.Effect<A, KubeApiError, R>,
): Effect.Effect<A, KubeApiError, R> =>
  Effect.onExit(effect, (exit) => {
    if (Exit.isSuccess(exit))
      return Effect.annotateCurrentSpan("http.response.status_code", exit.value.status);
    const error = Exit.findErrorOption(exit);
    if (error._tag === "None") return Effect.void;
    return Effect.annotateCurrentSpan({
      "error.type": error.value.status === undefined ? error.value.reason : String(error.value.status),
      ...(error.value.status === undefined ? {} : { "http.response.status_code": error.value.status }),
    });
  }).pipe(
    Effect.withSpan(
      attempt.method,
      { kind: "client", attributes: attributesOf(attempt) },
      { captureStackTrace: false },
    ),
  );
