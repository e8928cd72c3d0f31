// The operator's spans: a cycle's and a handler's span with their attributes when Effect's
// tracer is on, and none at all (the effect runs as it is, nothing recorded) when it is off.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as References from "effect/References";
import * as Tracing from "../src/Tracing.ts";

const event = {
  type: "ADDED" as const,
  object: { metadata: { name: "kex1", namespace: "ns1", uid: "u1", resourceVersion: "7" } },
};

// What a handler sees of the spans around it, after the cause and the outcome are recorded.
const observed = Tracing.cycle(
  "kopfexamples.v1.kopf.dev",
  event,
  Effect.gen(function* () {
    yield* Tracing.cause("create");
    return yield* Tracing.handler(
      { handler: "create_fn", reason: "create", retry: 2, root: false },
      Effect.gen(function* () {
        yield* Tracing.ended({ _tag: "Failed", kind: "temporary" });
        const span = yield* Effect.option(Effect.currentSpan);
        if (Option.isNone(span)) return undefined;
        const parent = span.value.parent;
        return {
          name: span.value.name,
          attributes: Object.fromEntries(span.value.attributes),
          parent:
            Option.isSome(parent) && parent.value._tag === "Span"
              ? { name: parent.value.name, attributes: Object.fromEntries(parent.value.attributes) }
              : undefined,
        };
      }),
    );
  }),
);

describe("Tracing", () => {
  it.effect("with the tracer on: a handler span under the cycle's, both with their attributes", () =>
    Effect.gen(function* () {
      const seen = yield* observed;
      assert.deepStrictEqual(seen, {
        name: "handler create_fn",
        attributes: {
          "kopf.handler.id": "create_fn",
          "kopf.handler.reason": "create",
          "kopf.handler.retry": 2,
          "kopf.handler.outcome": "failed",
          "error.type": "temporary",
        },
        parent: {
          name: "process kopfexamples.v1.kopf.dev",
          attributes: {
            "kopf.resource": "kopfexamples.v1.kopf.dev",
            "kopf.event.type": "ADDED",
            "k8s.namespace.name": "ns1",
            "kopf.object.name": "kex1",
            "kopf.object.uid": "u1",
            "kopf.object.resource_version": "7",
            "kopf.cause": "create",
          },
        },
      });
    }),
  );

  it.effect("with the tracer off: no span at all, and the outcome is recorded nowhere", () =>
    Effect.gen(function* () {
      assert.isUndefined(yield* observed);
    }).pipe(Effect.provideService(References.TracerEnabled, false)),
  );

  it.effect("with the tracer turned off inside a span, that span gets no cause or outcome", () =>
    Effect.gen(function* () {
      const outer = yield* Effect.gen(function* () {
        yield* Effect.all([Tracing.cause("create"), Tracing.ended({ _tag: "Succeeded" })]).pipe(
          Effect.provideService(References.TracerEnabled, false),
        );
        return yield* Effect.currentSpan;
      }).pipe(Effect.withSpan("outer"));
      assert.deepStrictEqual(Object.fromEntries(outer.attributes), {});
      // The same calls with the tracer on do record (so the assertion above can fail).
      const recorded = yield* Effect.gen(function* () {
        yield* Effect.all([Tracing.cause("create"), Tracing.ended({ _tag: "Succeeded" })]);
        return yield* Effect.currentSpan;
      }).pipe(Effect.withSpan("outer"));
      assert.deepStrictEqual(Object.fromEntries(recorded.attributes), {
        "kopf.cause": "create",
        "kopf.handler.outcome": "succeeded",
      });
    }),
  );
});
