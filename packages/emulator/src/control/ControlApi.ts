/**
 * The emulator's HTTP control surface, under the reserved prefix `/.emulator/` (no Kubernetes path
 * starts with it): tests in other processes inject failures and latency, drop watch streams,
 * compact the event history and pause or restart the server through it.
 *
 * | method | path                            | body                                  |
 * | ------ | ------------------------------- | ------------------------------------- |
 * | GET    | /.emulator/faults               | —  (lists the armed rules)            |
 * | DELETE | /.emulator/faults               | —  (disarms every rule)               |
 * | POST   | /.emulator/failures             | a {@link FaultInjector.FailureRule}   |
 * | POST   | /.emulator/latency              | a {@link FaultInjector.LatencyRule}   |
 * | POST   | /.emulator/watches/drop         | —                                     |
 * | POST   | /.emulator/history/compact      | —                                     |
 * | POST   | /.emulator/pause                | `{"seconds": N}` (resumes after N s)  |
 * | POST   | /.emulator/restart              | —                                     |
 */
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type { ApiRequest, ApiResponse } from "../api/Emulator.ts";
import * as RouteTable from "../api/RouteTable.ts";
import type { EmulatorServerError } from "../server/EmulatorServerError.ts";
import { jsonResponse, statusResponse } from "../server/internal/status.ts";
import type * as FaultInjector from "./FaultInjector.ts";

/** The reserved path prefix of the control surface. */
export const prefix = "/.emulator";

/** Whether a request path belongs to the control surface. */
export const isControlPath = (path: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/**
 * Everything the control surface can do, also usable programmatically.
 *
 * @example
 * ```ts
 * const server = yield* EmulatorServer;
 * yield* server.control.injectFailure({ status: 503, verb: "list", times: 3, retryAfterSeconds: 1 });
 * yield* server.control.dropWatches;
 * ```
 */
export interface ControlOperations {
  readonly injectFailure: (
    rule: FaultInjector.FailureRule,
  ) => Effect.Effect<void, FaultInjector.FaultRuleError>;
  readonly addLatency: (rule: FaultInjector.LatencyRule) => Effect.Effect<void, FaultInjector.FaultRuleError>;
  readonly clearFaults: Effect.Effect<void>;
  readonly pendingFaults: Effect.Effect<FaultInjector.PendingFaults>;
  /** Ends every open watch stream (clients see a disconnect). */
  readonly dropWatches: Effect.Effect<void>;
  /** Forgets the event history: watches from an older resourceVersion get 410 Gone. */
  readonly compactHistory: Effect.Effect<void>;
  /** Drops every connection and stops listening; the data stays. */
  readonly pause: Effect.Effect<void>;
  /** Listens again on the same port. */
  readonly resume: Effect.Effect<void, EmulatorServerError>;
  /** Pauses and resumes at once. */
  readonly restart: Effect.Effect<void, EmulatorServerError>;
}

/** A control response, and what to do once it has been sent. */
export interface ControlResult {
  readonly response: ApiResponse;
  readonly after?: Effect.Effect<void>;
}

const ok = (details: Readonly<Record<string, unknown>> = {}): ControlResult => ({
  response: jsonResponse(200, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    ...details,
    code: 200,
  }),
});

const parseJson = (request: ApiRequest): Effect.Effect<unknown, ControlResult> => {
  const text = request.body === undefined ? "" : new TextDecoder().decode(request.body);
  return Effect.try({
    try: () => (text.trim() === "" ? {} : (JSON.parse(text) as unknown)),
    catch: (cause) => ({ response: statusResponse(400, `malformed JSON body: ${String(cause)}`) }),
  });
};

const invalid = (error: FaultInjector.FaultRuleError): ControlResult => ({
  response: statusResponse(400, `invalid rule: ${error.message}`),
});

const pauseSeconds = (body: unknown): number | undefined => {
  if (typeof body !== "object" || body === null) return undefined;
  const seconds = (body as { readonly seconds?: unknown }).seconds;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
};

type Handler = (request: ApiRequest, ops: ControlOperations) => Effect.Effect<ControlResult, ControlResult>;

const injecting =
  (
    inject: (ops: ControlOperations, body: unknown) => Effect.Effect<void, FaultInjector.FaultRuleError>,
  ): Handler =>
  (request, ops) =>
    parseJson(request).pipe(
      Effect.flatMap((body) => inject(ops, body).pipe(Effect.mapError(invalid))),
      Effect.as(ok()),
    );

const pausing: Handler = (request, ops) =>
  parseJson(request).pipe(
    Effect.flatMap((body) => {
      const seconds = pauseSeconds(body);
      if (seconds === undefined) {
        return Effect.fail({
          response: statusResponse(
            400,
            'pause needs {"seconds": N} with N > 0: nothing could resume the server otherwise',
          ),
        });
      }
      const after = ops.pause.pipe(
        Effect.andThen(Effect.sleep(Duration.millis(seconds * 1000))),
        Effect.andThen(ops.resume),
        Effect.catch((error) => Effect.logError(`the emulator could not resume: ${error.message}`)),
      );
      return Effect.succeed({ ...ok({ message: `paused for ${seconds}s` }), after });
    }),
  );

const restarting: Handler = (_, ops) =>
  Effect.succeed({
    ...ok({ message: "restarting" }),
    after: ops.restart.pipe(
      Effect.catch((error) => Effect.logError(`the emulator could not restart: ${error.message}`)),
    ),
  });

/** The control endpoints, in matching order (the table at the top of this module). */
export const routes: ReadonlyArray<RouteTable.Route<Handler>> = [
  RouteTable.route(
    ["GET"],
    `${prefix}/faults`,
    () => (_, ops) =>
      ops.pendingFaults.pipe(Effect.map((pending) => ({ response: jsonResponse(200, pending) }))),
  ),
  RouteTable.route(["DELETE"], `${prefix}/faults`, () => (_, ops) => ops.clearFaults.pipe(Effect.as(ok()))),
  RouteTable.route(["POST"], `${prefix}/failures`, () =>
    injecting((ops, body) => ops.injectFailure(body as FaultInjector.FailureRule)),
  ),
  RouteTable.route(["POST"], `${prefix}/latency`, () =>
    injecting((ops, body) => ops.addLatency(body as FaultInjector.LatencyRule)),
  ),
  RouteTable.route(
    ["POST"],
    `${prefix}/watches/drop`,
    () => (_, ops) => ops.dropWatches.pipe(Effect.as(ok())),
  ),
  RouteTable.route(
    ["POST"],
    `${prefix}/history/compact`,
    () => (_, ops) => ops.compactHistory.pipe(Effect.as(ok())),
  ),
  RouteTable.route(["POST"], `${prefix}/pause`, () => pausing),
  RouteTable.route(["POST"], `${prefix}/restart`, () => restarting),
];

/**
 * Answers a control request (the path must satisfy {@link isControlPath}).
 *
 * @example
 * ```ts
 * const result = yield* ControlApi.route(request, server.control);
 * ```
 */
export const route = (request: ApiRequest, ops: ControlOperations): Effect.Effect<ControlResult> => {
  const matched = RouteTable.match(routes, request.method, RouteTable.segments(request.path) ?? []);
  switch (matched._tag) {
    case "NotFound":
      return Effect.succeed({
        response: statusResponse(404, `no emulator control endpoint at ${request.path}`),
      });
    case "MethodNotAllowed": {
      const allowed = matched.allowed.join(", ");
      return Effect.succeed({
        response: statusResponse(
          405,
          `${request.method} is not supported on ${request.path} (allowed: ${allowed})`,
          { headers: { allow: allowed } },
        ),
      });
    }
    case "Matched":
      return matched.value(request, ops).pipe(Effect.catch(Effect.succeed));
  }
};
