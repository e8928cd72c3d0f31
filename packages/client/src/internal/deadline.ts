/**
 * A request's deadline (`networking.requestTimeout`): the `Timeout` a request fails with when no
 * response came within it, and the race against a timer on `Clock` that keeps it for a transport
 * that does not keep deadlines itself. The Node transport keeps them on its connections and
 * fails with the same error.
 */
import * as Effect from "effect/Effect";
import { KubeApiError } from "../KubeApiError.ts";

/**
 * The failure of a request that got no response within `ms` milliseconds; `what` names it.
 *
 * @example
 * ```ts
 * noResponse(30_000, "GET /api/v1/pods").message // "No response within 30s: GET /api/v1/pods"
 * ```
 */
export const noResponse = (ms: number, what: string): KubeApiError =>
  KubeApiError.timeout(`No response within ${ms / 1000}s: ${what}`);

/**
 * `exchange`, failing with {@link noResponse} once `ms` milliseconds have passed on `Clock`
 * (`what` is made only then).
 *
 * @example
 * ```ts
 * raced(transport.request(request), 30_000, () => "GET /api/v1/pods")
 * ```
 */
export const raced = <A>(
  exchange: Effect.Effect<A, KubeApiError>,
  ms: number,
  what: () => string,
): Effect.Effect<A, KubeApiError> =>
  Effect.timeoutOrElse(exchange, { duration: ms, orElse: () => Effect.fail(noResponse(ms, what())) });
