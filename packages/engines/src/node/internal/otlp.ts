/**
 * The OpenTelemetry tracing stack (edge code, imported lazily by `node/Tracing.ts`):
 * `@effect/opentelemetry` turns Effect's spans into OpenTelemetry spans of a tracer provider
 * (sampler from `OTEL_TRACES_SAMPLER`), batched to an OTLP/HTTP exporter; the resource comes
 * from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. Closing the layer flushes the spans.
 */
import * as OtelTracer from "@effect/opentelemetry/OtelTracer";
import * as OtelResource from "@effect/opentelemetry/Resource";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";

/** How long the spans still buffered at exit may take to be sent. */
const FLUSH_MILLIS = 5000;

const provider = (endpoint: string) =>
  Layer.effect(
    OtelTracer.OtelTracerProvider,
    Effect.gen(function* () {
      const resource = yield* OtelResource.Resource;
      return yield* Effect.acquireRelease(
        Effect.sync(
          () =>
            new BasicTracerProvider({
              resource,
              spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }))],
            }),
        ),
        (made) =>
          Effect.promise(() => made.forceFlush().finally(() => made.shutdown())).pipe(
            Effect.ignore,
            Effect.timeoutOption(FLUSH_MILLIS),
          ),
      );
    }),
  );

/**
 * The tracing layer exporting to an OTLP/HTTP traces endpoint.
 *
 * @example
 * ```ts
 * Effect.provide(program, layer("http://127.0.0.1:4318/v1/traces"))
 * ```
 */
export const layer = (endpoint: string): Layer.Layer<never> =>
  OtelTracer.layer.pipe(Layer.provide(provider(endpoint)), Layer.provide(OtelResource.layerFromEnv()));
