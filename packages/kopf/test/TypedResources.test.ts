/**
 * `kopf.resource`: the declaration lands in the default registry; handlers registered on it get
 * decoded bodies typed from the Schemas (spec exact, status and patch.status typed), a body that
 * does not decode gets a warning naming the field and a permanent failure instead of a handler
 * call, and `decode: false` passes the stored body through.
 */
import { assert, beforeEach, describe, expectTypeOf, it } from "@effect/vitest";
import * as Schema from "effect/Schema";
import * as kopf from "../src/index.ts";

const define = () =>
  kopf.resource({
    group: "kopf.dev",
    kind: "TypedThing",
    plural: "typedthings",
    versions: {
      v1: {
        spec: Schema.Struct({
          size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5 })),
          mode: Schema.Literals(["a", "b"]).pipe(kopf.Resources.withDefault("a")),
        }),
        status: Schema.Struct({
          phase: Schema.optionalKey(Schema.String),
          ready: Schema.optionalKey(Schema.Boolean),
        }),
      },
    },
    storage: "v1",
  });

beforeEach(() => {
  kopf.setDefaultRegistry(kopf.Registry.make());
});

interface Line {
  readonly level: string;
  readonly message: string;
}

const context = (body: unknown, lines: Array<Line>) => {
  const log = (level: string) => (message: string) => lines.push({ level, message });
  return {
    body,
    spec: (body as { spec?: unknown }).spec,
    status: {},
    logger: {
      debug: log("debug"),
      info: log("info"),
      warning: log("warning"),
      error: log("error"),
      exception: log("exception"),
    },
  };
};

const stored = (spec: unknown) => ({
  apiVersion: "kopf.dev/v1",
  kind: "TypedThing",
  metadata: { name: "a", namespace: "ns" },
  spec,
  status: { phase: "Old", junk: 1 },
});

describe("kopf.resource", () => {
  it("declares the resource in the default registry", () => {
    const Thing = define();
    assert.deepStrictEqual(kopf.getDefaultRegistry().resources, [Thing]);
  });

  it("rejects an inconsistent definition at registration time", () => {
    assert.throws(
      () =>
        kopf.resource({
          group: "kopf.dev",
          kind: "Broken",
          plural: "brokens",
          versions: { v1: { spec: Schema.Struct({}) } },
          storage: "v2" as "v1",
        }),
      /the storage version v2 is not among the versions \(v1\)/,
    );
  });

  it("types the contexts from the Schemas, without casts", () => {
    const Thing = define();
    kopf.on.create(Thing, function typed({ spec, status, patch, body }) {
      expectTypeOf(spec.size).toEqualTypeOf<number>();
      expectTypeOf(spec.mode).toEqualTypeOf<"a" | "b">();
      expectTypeOf(status.phase).toEqualTypeOf<string | undefined>();
      expectTypeOf(body.spec.size).toEqualTypeOf<number>();
      patch.status.phase = "Ready";
      patch.status.ready = null;
      // @ts-expect-error: phase is a string
      patch.status.phase = 1;
      // @ts-expect-error: no such field
      patch.spec.other = 1;
    });
    kopf.on.update(Thing, { field: "spec.size", decode: false }, function resized({ spec }) {
      expectTypeOf(spec.size).toEqualTypeOf<number>();
    });
  });

  it("hands the handler the decoded body: defaults in, undeclared fields out", () => {
    const Thing = define();
    const seen: Array<unknown> = [];
    kopf.on.create(Thing, function created({ spec, status, body }) {
      seen.push(spec, status, body.metadata.name);
    });
    const [handler] = kopf.getDefaultRegistry().changing;
    assert.strictEqual(handler?.id, "created");
    const lines: Array<Line> = [];
    handler?.fn(context(stored({ size: 2, extra: "x" }), lines) as never);
    assert.deepStrictEqual(seen, [{ size: 2, mode: "a" }, { phase: "Old" }, "a"]);
    assert.deepStrictEqual(lines, []);
  });

  it("a body that does not decode: a warning naming the field, a permanent failure, no call", () => {
    const Thing = define();
    let calls = 0;
    kopf.on.create(Thing, function created() {
      calls += 1;
    });
    const [handler] = kopf.getDefaultRegistry().changing;
    const lines: Array<Line> = [];
    let failure: unknown;
    try {
      handler?.fn(context(stored({ size: 9, mode: "c" }), lines) as never);
    } catch (error) {
      failure = error;
    }
    assert.instanceOf(failure, kopf.PermanentError);
    assert.match(String((failure as Error).message), /spec\.size/);
    assert.strictEqual(calls, 0);
    assert.strictEqual(lines.length, 1);
    assert.strictEqual(lines[0]?.level, "warning");
    assert.match(
      lines[0]?.message ?? "",
      /^The object does not decode as kopf\.dev\/v1: spec\.size: .*; spec\.mode: .*\.$/,
    );
  });

  it("decode: false passes the stored body through", () => {
    const Thing = define();
    const seen: Array<unknown> = [];
    kopf.on.create(Thing, { decode: false }, function raw({ spec }) {
      seen.push(spec);
    });
    kopf.getDefaultRegistry().changing[0]?.fn(context(stored({ size: 9 }), []) as never);
    assert.deepStrictEqual(seen, [{ size: 9 }]);
  });

  it("decode is an option of typed resources only", () => {
    assert.throws(
      () => kopf.on.create("kopfexamples", { decode: true } as never, () => {}),
      /decode is a boolean option of typed resources/,
    );
  });

  it("a handler of another version watches that version", () => {
    const Thing = define();
    kopf.on.event(Thing.version("v1"), function watched() {});
    const [selector] = kopf.getDefaultRegistry().selectors();
    assert.include(JSON.stringify(selector), "typedthings");
  });
});
