/**
 * The client's Effect metrics: API requests by verb, resource and status code, their latency,
 * retries and rate limiting (the shapes of client-go's `rest_client_*` metrics under a `kopf_`
 * prefix). Labels stay bounded: the resource as `plural.version.group` and the verb are taken
 * from the request path, never object names. An exporter reads them from Effect's metric
 * registry (see `@kopf/engines`' metrics endpoint).
 */
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type * as Metric from "effect/Metric";
import type { KubeApiError } from "./KubeApiError.ts";
import type { Method } from "./KubeTransport.ts";
import * as MetricRecording from "./MetricRecording.ts";
import * as MetricSeries from "./MetricSeries.ts";

/** Latency buckets in seconds, from 5 ms to a minute. */
export const LATENCY_BUCKETS: ReadonlyArray<number> = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Request attempts, by `verb`, `resource` and `code` (`<error>` when nothing was answered). */
export const requests = MetricSeries.counter("kopf_api_requests_total", {
  description: "Kubernetes API request attempts, by verb, resource and HTTP status code",
  incremental: true,
});
/** Seconds from sending an attempt to its complete response (or its failure). */
export const latency = MetricSeries.histogram("kopf_api_request_duration_seconds", {
  description: "Kubernetes API request latency in seconds, by verb and resource",
  boundaries: LATENCY_BUCKETS,
});
/** Attempts after the first one of a request, by `verb`, `resource` and the `reason` retried. */
export const retries = MetricSeries.counter("kopf_api_retries_total", {
  description: "Kubernetes API request attempts retried after a failure, by verb, resource and reason",
  incremental: true,
});
/** `429 Too Many Requests` answers, by `verb` and `resource`. */
export const throttled = MetricSeries.counter("kopf_api_rate_limited_total", {
  description: "Kubernetes API requests answered 429 Too Many Requests, by verb and resource",
  incremental: true,
});
/** Seconds spent waiting for the client-side rate limiter. */
export const limiterWait = MetricSeries.counter("kopf_api_rate_limiter_wait_seconds_total", {
  description: "Seconds spent waiting for the client-side rate limiter",
  incremental: true,
});

/** The bounded labels of one request. */
export interface RequestLabels {
  /** Kubernetes' verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `discover`, `other`. */
  readonly verb: string;
  /** `plural.version.group` (`pods.v1` for the core group), with `/subresource`; `""` for none. */
  readonly resource: string;
}

/**
 * The verb and resource of a request from its method and path.
 *
 * @example
 * ```ts
 * labelsOf("GET", "/apis/kopf.dev/v1/namespaces/ns1/kopfexamples/kex1") // { verb: "get", resource: "kopfexamples.v1.kopf.dev" }
 * labelsOf("GET", "/api/v1/pods?watch=true") // { verb: "watch", resource: "pods.v1" }
 * labelsOf("PATCH", "/api/v1/namespaces/ns1/pods/p1/status") // { verb: "patch", resource: "pods.v1/status" }
 * labelsOf("GET", "/apis") // { verb: "discover", resource: "" }
 * ```
 */
export const labelsOf = (method: Method, path: string): RequestLabels => {
  const [route = "", query = ""] = path.split("?");
  const parts = route.split("/").filter((part) => part !== "");
  let group: string;
  let version: string;
  let rest: ReadonlyArray<string>;
  if (parts[0] === "api" && parts.length >= 2) {
    group = "";
    version = parts[1] ?? "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1] ?? "";
    version = parts[2] ?? "";
    rest = parts.slice(3);
  } else {
    return { verb: method === "GET" ? "discover" : "other", resource: "" };
  }
  if (rest.length === 0) return { verb: method === "GET" ? "discover" : "other", resource: "" };
  // `namespaces/NS/plural/...` is a namespaced resource; `namespaces[/NAME[/sub]]` is Namespace itself.
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [plural = "", name, ...subs] = rest;
  const resource = [plural, version, group].filter((part) => part !== "").join(".");
  const named = name !== undefined;
  const watching = /(^|&)watch=(true|1)(&|$)/.test(query);
  const verb =
    method === "GET"
      ? watching
        ? "watch"
        : named
          ? "get"
          : "list"
      : method === "POST"
        ? "create"
        : method === "PUT"
          ? "update"
          : method === "PATCH"
            ? "patch"
            : "delete";
  return { verb, resource: subs.length > 0 ? `${resource}/${subs.join("/")}` : resource };
};

/** The `code` label of a failed attempt: the status of its error, or `<error>` without a response. */
const failureCodeOf = (cause: Cause.Cause<KubeApiError>): string => {
  const error = Cause.findErrorOption(cause);
  return error._tag === "Some" && error.value.status !== undefined ? String(error.value.status) : "<error>";
};

/** The series one kind of request updates, tagged once per distinct labels object. */
interface Series {
  readonly latency: Metric.Metric<number, unknown>;
  readonly throttled: Metric.Metric<number, unknown>;
  readonly requests: Map<string, Metric.Metric<number, unknown>>;
}
const seriesByLabels = new WeakMap<RequestLabels, Series>();
const seriesOf = (labels: RequestLabels): Series => {
  let series = seriesByLabels.get(labels);
  if (series === undefined) {
    series = {
      latency: MetricSeries.tagged(latency, labels),
      throttled: MetricSeries.tagged(throttled, labels),
      requests: new Map(),
    };
    seriesByLabels.set(labels, series);
  }
  return series;
};
const requestsOf = (series: Series, labels: RequestLabels, code: string): Metric.Metric<number, unknown> => {
  let counter = series.requests.get(code);
  if (counter === undefined) {
    counter = MetricSeries.tagged(requests, { ...labels, code });
    series.requests.set(code, counter);
  }
  return counter;
};

/**
 * Measures one attempt of a request: counts it by its status code and records its latency
 * (on `Clock`); a `429` also counts as rate limiting. Interruptions are not counted. The series
 * are tagged once per labels object, so a caller that keeps its labels tags nothing per request.
 * `check`, if given, turns a response into the attempt's failure (an error status), once it is
 * counted by its status.
 *
 * @example
 * ```ts
 * const attempt = ApiMetrics.measured(ApiMetrics.labelsOf("GET", path), transport.request(request), KubeApiError.fromResponse)
 * ```
 */
export const measured = <A extends { readonly status: number }, R>(
  labels: RequestLabels,
  attempt: Effect.Effect<A, KubeApiError, R>,
  check?: (response: A) => KubeApiError | undefined,
): Effect.Effect<A, KubeApiError, R> =>
  // Made for every request: the clock and the metrics' context come from the fiber, and the
  // attempt's end is matched where it happens (no exit is made and run again, no more steps).
  Effect.withFiber((fiber) => {
    const recording = MetricRecording.isOn(fiber.context);
    const clock = fiber.getRef(Clock.Clock);
    const started = recording ? clock.currentTimeMillisUnsafe() : 0;
    // `code`: the status (or `<error>` without a response).
    const record = (code: string): void => {
      if (!recording) return;
      const seconds = (clock.currentTimeMillisUnsafe() - started) / 1000;
      const series = seriesOf(labels);
      requestsOf(series, labels, code).updateUnsafe(1, fiber.context);
      series.latency.updateUnsafe(seconds, fiber.context);
      if (code === "429") series.throttled.updateUnsafe(1, fiber.context);
    };
    return Effect.matchCauseEffect(attempt, {
      onSuccess: (value) => {
        record(String(value.status));
        const error = check?.(value);
        return error === undefined ? Effect.succeed(value) : Effect.fail(error);
      },
      onFailure: (cause) => {
        if (!Cause.hasInterrupts(cause)) record(failureCodeOf(cause));
        return Effect.failCause(cause);
      },
    });
  });

/**
 * Counts a retry of a request after a failure of the given reason.
 *
 * @example
 * ```ts
 * yield* ApiMetrics.retried({ verb: "get", resource: "pods.v1" }, "ServerError")
 * ```
 */
export const retried = (labels: RequestLabels, reason: string): Effect.Effect<void> =>
  MetricRecording.update(MetricSeries.tagged(retries, { ...labels, reason }), 1);

/**
 * Runs the rate limiter's `acquire`, adding the time it waited to the limiter's metric.
 *
 * @example
 * ```ts
 * yield* ApiMetrics.limited(limiter.acquire)
 * ```
 */
export const limited = (acquire: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis;
    yield* acquire;
    const waited = (yield* Clock.currentTimeMillis) - started;
    if (waited > 0) yield* MetricRecording.update(limiterWait, waited / 1000);
  });
