/**
 * Fault injection around the emulator's request handler: the next N requests matching a rule fail
 * with a chosen status (and optional `Retry-After`), and matching requests can be delayed. Delays
 * sleep on Effect's `Clock`, so an in-process emulator under `TestClock` is driven by the test.
 */
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Ref from "effect/Ref";
import * as Schema from "effect/Schema";
import type { ApiRequest, ApiResponse } from "../api/Emulator.ts";
import { statusResponse } from "../server/internal/status.ts";
import * as RequestInfo from "./RequestInfo.ts";

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0));
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));

/** Which requests a rule applies to; every given field must match, absent fields match all. */
const matchFields = {
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb: Schema.optionalKey(Schema.String),
  /** `plural`, `plural/subresource`, `plural/*` or `*`. */
  resource: Schema.optionalKey(Schema.String),
  apiGroup: Schema.optionalKey(Schema.String),
  namespace: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String),
  /** A prefix of the request path. */
  path: Schema.optionalKey(Schema.String),
};

/** A failure rule: the next `times` (default 1) matching requests answer `status`. */
export const FailureRule = Schema.Struct({
  ...matchFields,
  status: Schema.Int.check(Schema.isBetween({ minimum: 400, maximum: 599 })),
  times: Schema.optionalKey(PositiveInt),
  retryAfterSeconds: Schema.optionalKey(NonNegativeInt),
  message: Schema.optionalKey(Schema.String),
  reason: Schema.optionalKey(Schema.String),
});
export type FailureRule = typeof FailureRule.Type;

/** A latency rule: matching requests wait `delayMillis` first (for `times` requests, default all). */
export const LatencyRule = Schema.Struct({
  ...matchFields,
  delayMillis: NonNegativeInt,
  times: Schema.optionalKey(PositiveInt),
});
export type LatencyRule = typeof LatencyRule.Type;

/** A rule that did not validate. */
export class FaultRuleError extends Data.TaggedError("FaultRuleError")<{
  readonly reason: "InvalidRule";
  readonly message: string;
}> {}

interface Armed<R> {
  readonly rule: R;
  readonly remaining: number;
}

/** The rules still armed. */
export interface PendingFaults {
  readonly failures: ReadonlyArray<FailureRule & { readonly remaining: number }>;
  readonly latencies: ReadonlyArray<LatencyRule & { readonly remaining: number | null }>;
}

type Match = { readonly [K in keyof typeof matchFields]?: string };

/** Whether a rule's match fields select a request (pure). */
export const matches = (match: Match, request: Pick<ApiRequest, "method" | "path" | "query">): boolean => {
  if (match.path !== undefined && !request.path.startsWith(match.path)) return false;
  const needsInfo =
    match.verb !== undefined ||
    match.resource !== undefined ||
    match.apiGroup !== undefined ||
    match.namespace !== undefined ||
    match.name !== undefined;
  if (!needsInfo) return true;
  const info = RequestInfo.parse(request.method, request.path, request.query);
  if (match.verb !== undefined && match.verb.toLowerCase() !== info.verb) return false;
  if (info._tag === "NonResource")
    return (
      match.resource === undefined &&
      match.apiGroup === undefined &&
      match.namespace === undefined &&
      match.name === undefined
    );
  if (match.apiGroup !== undefined && match.apiGroup !== info.apiGroup) return false;
  if (match.namespace !== undefined && match.namespace !== info.namespace) return false;
  if (match.name !== undefined && match.name !== info.name) return false;
  if (match.resource !== undefined && match.resource !== "*") {
    if (match.resource.endsWith("/*"))
      return match.resource.slice(0, -2) === info.resource && info.subresource !== undefined;
    return match.resource === RequestInfo.resourcePath(info);
  }
  return true;
};

/** Takes one use of the first rule matching the request, if any (pure). */
const take = <R extends Match>(
  armed: ReadonlyArray<Armed<R>>,
  request: ApiRequest,
): readonly [R | undefined, ReadonlyArray<Armed<R>>] => {
  const index = armed.findIndex((entry) => matches(entry.rule, request));
  const hit = armed[index];
  if (hit === undefined) return [undefined, armed];
  const rest = armed.filter((_, i) => i !== index);
  return hit.remaining <= 1
    ? [hit.rule, rest]
    : [
        hit.rule,
        [...rest.slice(0, index), { rule: hit.rule, remaining: hit.remaining - 1 }, ...rest.slice(index)],
      ];
};

const failureResponse = (rule: FailureRule): ApiResponse => {
  const retry = rule.retryAfterSeconds;
  return statusResponse(rule.status, rule.message ?? `injected failure (${rule.status})`, {
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
    ...(retry === undefined
      ? {}
      : { details: { retryAfterSeconds: retry }, headers: { "retry-after": String(retry) } }),
  });
};

const decodeWith =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) =>
  (input: unknown): Effect.Effect<S["Type"], FaultRuleError> =>
    Schema.decodeUnknownEffect(schema)(input).pipe(
      Effect.mapError((error) => new FaultRuleError({ reason: "InvalidRule", message: error.message })),
    );

/** Decodes and validates a failure rule from untrusted input (e.g. an HTTP body). */
export const decodeFailureRule = decodeWith(FailureRule);
/** Decodes and validates a latency rule from untrusted input. */
export const decodeLatencyRule = decodeWith(LatencyRule);

/**
 * The fault injector service.
 *
 * @example
 * ```ts
 * const faults = yield* FaultInjector;
 * yield* faults.injectFailure({ status: 500, verb: "patch", resource: "kopfexamples", times: 2 });
 * yield* faults.addLatency({ delayMillis: 200, verb: "watch" });
 * ```
 */
export class FaultInjector extends Context.Service<
  FaultInjector,
  {
    /** Arms a failure rule (validated). */
    readonly injectFailure: (rule: FailureRule) => Effect.Effect<void, FaultRuleError>;
    /** Arms a latency rule (validated). */
    readonly addLatency: (rule: LatencyRule) => Effect.Effect<void, FaultRuleError>;
    /** Disarms every rule. */
    readonly clear: Effect.Effect<void>;
    /** The rules still armed. */
    readonly pending: Effect.Effect<PendingFaults>;
    /** Runs a request through the armed rules, then through `handle` unless a failure fires. */
    readonly around: (
      request: ApiRequest,
      handle: (request: ApiRequest) => Effect.Effect<ApiResponse>,
    ) => Effect.Effect<ApiResponse>;
  }
>()("@kopf/emulator/FaultInjector") {
  /** A fault injector with no rules armed. */
  static readonly layer = Layer.effect(
    FaultInjector,
    Effect.gen(function* () {
      const failures = yield* Ref.make<ReadonlyArray<Armed<FailureRule>>>([]);
      const latencies = yield* Ref.make<ReadonlyArray<Armed<LatencyRule>>>([]);
      // Read synchronously on every request: with nothing armed, `around` is just `handle`.
      let armed = false;
      const refreshArmed = Effect.gen(function* () {
        const f = yield* Ref.get(failures);
        const l = yield* Ref.get(latencies);
        armed = f.length > 0 || l.length > 0;
      });
      return FaultInjector.of({
        injectFailure: (rule) =>
          decodeFailureRule(rule).pipe(
            Effect.flatMap((valid) =>
              Ref.update(failures, (all) => [...all, { rule: valid, remaining: valid.times ?? 1 }]),
            ),
            Effect.andThen(refreshArmed),
          ),
        addLatency: (rule) =>
          decodeLatencyRule(rule).pipe(
            Effect.flatMap((valid) =>
              Ref.update(latencies, (all) => [
                ...all,
                { rule: valid, remaining: valid.times ?? Number.POSITIVE_INFINITY },
              ]),
            ),
            Effect.andThen(refreshArmed),
          ),
        clear: Ref.set(failures, []).pipe(
          Effect.andThen(Ref.set(latencies, [])),
          Effect.andThen(refreshArmed),
        ),
        pending: Effect.gen(function* () {
          const f = yield* Ref.get(failures);
          const l = yield* Ref.get(latencies);
          return {
            failures: f.map(({ rule, remaining }) => ({ ...rule, remaining })),
            latencies: l.map(({ rule, remaining }) => ({
              ...rule,
              remaining: Number.isFinite(remaining) ? remaining : null,
            })),
          };
        }),
        around: (request, handle) =>
          !armed
            ? handle(request)
            : Effect.gen(function* () {
                const delay = yield* Ref.modify(latencies, (all) => take(all, request));
                const failure = yield* Ref.modify(failures, (all) => take(all, request));
                yield* refreshArmed;
                if (delay !== undefined && delay.delayMillis > 0)
                  yield* Effect.sleep(Duration.millis(delay.delayMillis));
                return failure === undefined ? yield* handle(request) : failureResponse(failure);
              }),
      });
    }),
  );
}
