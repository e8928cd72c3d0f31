/**
 * Trace export (edge code): the OpenTelemetry layer of the operator when the standard `OTEL_*`
 * environment configures it ({@link TracingConfig.decide}). The OpenTelemetry packages are
 * imported only then, so an operator without tracing loads none of them. Without it, Effect's
 * tracer is turned off (`References.TracerEnabled`), so that the operator makes no spans that
 * nothing would read (one per processing cycle, handler and API request, each a few allocations
 * and context switches), unless the program running the operator brought a tracer of its own.
 */
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as References from "effect/References";
import * as Tracer from "effect/Tracer";
import * as TracingConfig from "../TracingConfig.ts";

/**
 * The tracing layer for an environment (the process's by default): Effect's spans become
 * OpenTelemetry spans exported over OTLP/HTTP; flushed when the layer's scope closes. When the
 * environment configures no export, the tracer is turned off unless a tracer was provided
 * around the layer.
 *
 * @example
 * ```ts
 * yield* Operating.run(options).pipe(Effect.provide(Tracing.layer()))
 * ```
 */
export const layer = (env: Readonly<Record<string, string | undefined>> = process.env): Layer.Layer<never> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const decision = TracingConfig.decide(env);
      if (decision._tag === "Off") {
        const context = yield* Effect.context<never>();
        return Context.getOrUndefined(context, Tracer.Tracer) === undefined
          ? Layer.succeed(References.TracerEnabled, false)
          : Layer.empty;
      }
      const otlp = yield* Effect.promise(() => import("./internal/otlp.ts"));
      yield* Effect.logDebug(`Exporting traces to ${decision.endpoint}`);
      return otlp.layer(decision.endpoint);
    }),
  );
