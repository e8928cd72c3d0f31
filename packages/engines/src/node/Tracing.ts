/**
 * Trace export (edge code): the OpenTelemetry layer of the operator when the standard `OTEL_*`
 * environment configures it ({@link TracingConfig.decide}), else nothing. The OpenTelemetry
 * packages are imported only then, so an operator without tracing loads none of them.
 */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as TracingConfig from "../TracingConfig.ts";

/**
 * The tracing layer for an environment (the process's by default): Effect's spans become
 * OpenTelemetry spans exported over OTLP/HTTP; flushed when the layer's scope closes.
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
      if (decision._tag === "Off") return Layer.empty;
      const otlp = yield* Effect.promise(() => import("./internal/otlp.ts"));
      yield* Effect.logDebug(`Exporting traces to ${decision.endpoint}`);
      return otlp.layer(decision.endpoint);
    }),
  );
