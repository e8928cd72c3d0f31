/**
 * Traces: the decision of the standard `OTEL_*` environment (off unless configured), and end to
 * end an operator on the emulator exporting to an OTLP/HTTP receiver started here on
 * 127.0.0.1 (a real HTTP server decoding the exporter's OTLP JSON): for a create whose handler
 * fails once, then creates a child object in a span of its own, the span tree is checked — a
 * cycle span per processing of the object (its reference, the cause, the resourceVersion), a
 * handler span per invocation under it (retry, outcome), the user's span under the handler's,
 * the API requests as client spans with HTTP semantic conventions under them.
 */
import { createServer, type Server } from "node:http";
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { Registry, TemporaryError } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as References from "effect/References";
import * as Tracer from "effect/Tracer";
import * as Tracing from "../src/node/Tracing.ts";
import * as Operating from "../src/Operating.ts";
import * as TracingConfig from "../src/TracingConfig.ts";
import * as H from "./fixtures/Harness.ts";

describe("TracingConfig.decide", () => {
  it.each([
    [{}, "Off"],
    [{ OTEL_SERVICE_NAME: "op" }, "Off"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "http://c:4318/v1/traces"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }, "http://c:4318/v1/traces"],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:4318/x", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" },
      "http://t:4318/x",
    ],
    [{ OTEL_TRACES_EXPORTER: "otlp" }, TracingConfig.DEFAULT_ENDPOINT],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "Off"],
    [{ OTEL_TRACES_EXPORTER: "console", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "Off"],
    [{ OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, "Off"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, "Off"],
  ] as const)("%j ⇒ %s", (env, expected) => {
    const decision = TracingConfig.decide(env);
    assert.strictEqual(decision._tag === "On" ? decision.endpoint : decision._tag, expected);
  });
});

/** One span as OTLP JSON carries it. */
interface Span {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly boolValue?: boolean;
  readonly doubleValue?: number;
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}
interface OtlpRequest {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource?: { readonly attributes?: ReadonlyArray<OtlpAttribute> };
    readonly scopeSpans?: ReadonlyArray<{
      readonly spans?: ReadonlyArray<
        Omit<Span, "attributes"> & { readonly attributes?: ReadonlyArray<OtlpAttribute> }
      >;
    }>;
  }>;
}

const otlpValue = (value: OtlpValue): unknown =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue;
const attributesOf = (attributes: ReadonlyArray<OtlpAttribute> = []) =>
  Object.fromEntries(attributes.map((attribute) => [attribute.key, otlpValue(attribute.value)]));

/** A loopback OTLP/HTTP receiver: every span it got, and the resources they came with. */
const receiver = Effect.acquireRelease(
  Effect.callback<{
    server: Server;
    port: number;
    spans: Array<Span>;
    resources: Array<Record<string, unknown>>;
    types: Set<string>;
  }>((resume) => {
    const spans: Array<Span> = [];
    const resources: Array<Record<string, unknown>> = [];
    const types = new Set<string>();
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        types.add(`${request.method} ${request.url} ${request.headers["content-type"]}`);
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpRequest;
        for (const group of body.resourceSpans ?? []) {
          resources.push(attributesOf(group.resource?.attributes));
          for (const scope of group.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({ ...span, attributes: attributesOf(span.attributes) });
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end("{}");
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resume(Effect.succeed({ server, port, spans, resources, types }));
    });
  }),
  ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void))),
);

const configMaps = Resource.make({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
  subresources: [],
  verbs: ["create", "get", "list"],
  preferred: true,
});

/** Sets environment variables for the scope. */
const environment = (variables: Readonly<Record<string, string>>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const previous = Object.fromEntries(Object.keys(variables).map((key) => [key, process.env[key]]));
      Object.assign(process.env, variables);
      return previous;
    }),
    (previous) =>
      Effect.sync(() => {
        for (const [key, value] of Object.entries(previous)) {
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
        }
      }),
  );

describe("Tracing.layer without an export", () => {
  const enabledUnder = (env: Record<string, string>) =>
    Effect.service(References.TracerEnabled).pipe(Effect.provide(Tracing.layer(env)));

  it.effect("turns Effect's tracer off, so the operator makes no spans", () =>
    Effect.gen(function* () {
      assert.isTrue(yield* Effect.service(References.TracerEnabled));
      assert.isFalse(yield* enabledUnder({}));
      assert.isFalse(
        yield* enabledUnder({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }),
      );
    }),
  );

  it.effect("leaves it on when the program running the operator brought a tracer", () =>
    Effect.gen(function* () {
      const own = Tracer.make({ span: (options) => Tracer.nativeTracer.span(options) });
      assert.isTrue(yield* enabledUnder({}).pipe(Effect.provideService(Tracer.Tracer, own)));
    }),
  );
});

describe("the traces of a running operator", () => {
  it.live(
    "a create with a retried handler and a child object: cycles, handlers, the user's span, API requests",
    () =>
      H.run(() =>
        Effect.gen(function* () {
          const otlp = yield* receiver;
          yield* environment({
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${otlp.port}/v1/traces`,
            OTEL_SERVICE_NAME: "kopf-traces-test",
          });
          const registry = Registry.make();
          let calls = 0;
          registry.on.create(H.RES, function create_fn({ retry, name }) {
            calls += 1;
            if (retry === 0) return Effect.fail(new TemporaryError("not yet", { delay: 0.1 }));
            return Effect.gen(function* () {
              const api = yield* KubeApi;
              yield* api.create(
                configMaps,
                {
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  metadata: { name: `${name ?? "kex"}-child`, namespace: "ns1" },
                },
                { namespace: "ns1" },
              );
            }).pipe(Effect.withSpan("create the child"));
          });
          const fiber = yield* Effect.forkScoped(
            Operating.run({ registry, namespaces: ["ns1"], standalone: true }),
          );
          yield* H.create("kex1");
          const api = yield* KubeApi;
          let child = false;
          for (let i = 0; i < 200 && !child; i++) {
            yield* Effect.sleep("50 millis");
            child = yield* api.get(configMaps, { namespace: "ns1", name: "kex1-child" }).pipe(
              Effect.as(true),
              Effect.catch(() => Effect.succeed(false)),
            );
          }
          assert.isTrue(child);
          yield* Effect.sleep("300 millis");
          // Stopping the operator closes the tracing layer, which flushes the spans.
          yield* Fiber.interrupt(fiber);
          for (let i = 0; i < 100 && !otlp.spans.some((s) => s.name === "create the child"); i++) {
            yield* Effect.sleep("50 millis");
          }

          assert.strictEqual(calls, 2);
          assert.isTrue([...otlp.types].every((type) => type.startsWith("POST /v1/traces application/json")));
          assert.isTrue(otlp.resources.every((resource) => resource["service.name"] === "kopf-traces-test"));
          const byId = new Map(otlp.spans.map((span) => [span.spanId, span]));
          const parentOf = (span: Span | undefined) =>
            span?.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);

          // One handler span per invocation, each under a cycle span of the object for `create`.
          const handlers = otlp.spans
            .filter((span) => span.name === "handler create_fn")
            .sort(
              (a, b) =>
                Number(a.attributes["kopf.handler.retry"]) - Number(b.attributes["kopf.handler.retry"]),
            );
          assert.deepStrictEqual(
            handlers.map((span) => [
              span.attributes["kopf.handler.retry"],
              span.attributes["kopf.handler.outcome"],
            ]),
            [
              [0, "failed"],
              [1, "succeeded"],
            ],
          );
          assert.strictEqual(handlers[0]?.attributes["error.type"], "temporary");
          assert.strictEqual(handlers[0]?.attributes["kopf.handler.reason"], "create");
          for (const handler of handlers) {
            const cycle = parentOf(handler);
            assert.strictEqual(cycle?.name, "process kopfexamples.v1.kopf.dev");
            assert.strictEqual(cycle?.attributes["kopf.object.name"], "kex1");
            assert.strictEqual(cycle?.attributes["k8s.namespace.name"], "ns1");
            assert.strictEqual(cycle?.attributes["kopf.cause"], "create");
            assert.match(String(cycle?.attributes["kopf.object.resource_version"]), /^\d+$/);
            assert.isString(cycle?.attributes["kopf.object.uid"]);
            assert.strictEqual(cycle?.traceId, handler.traceId);
            assert.isUndefined(parentOf(cycle), "a cycle starts its own trace");
          }
          assert.notStrictEqual(parentOf(handlers[0])?.spanId, parentOf(handlers[1])?.spanId);

          // The user's span nests under the handler's; the child's creation under the user's.
          const user = otlp.spans.find((span) => span.name === "create the child");
          assert.strictEqual(parentOf(user)?.spanId, handlers[1]?.spanId);
          const post = otlp.spans.find(
            (span) =>
              span.name === "POST" &&
              String(span.attributes["url.full"]).endsWith("/api/v1/namespaces/ns1/configmaps"),
          );
          assert.strictEqual(parentOf(post)?.spanId, user?.spanId);
          assert.strictEqual(post?.kind, 3); // SPAN_KIND_CLIENT
          assert.strictEqual(post?.attributes["http.request.method"], "POST");
          assert.strictEqual(post?.attributes["http.response.status_code"], 201);
          assert.strictEqual(post?.attributes["kopf.api.verb"], "create");
          assert.strictEqual(post?.attributes["kopf.resource"], "configmaps.v1");
          assert.isString(post?.attributes["server.address"]);

          // The cycles' own API requests (the progress patches) are in the cycles' traces.
          const patches = otlp.spans.filter(
            (span) => span.name === "PATCH" && parentOf(span)?.name === "process kopfexamples.v1.kopf.dev",
          );
          assert.isAtLeast(patches.length, 2);
          for (const patch of patches) assert.strictEqual(patch.attributes["http.response.status_code"], 200);
        }),
      ),
    60_000,
  );
});
