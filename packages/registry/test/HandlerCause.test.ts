/**
 * Causes as filter contexts (docs/behaviour/handler-context.md#context-fields and the kwargs sets of docs/behaviour/handler-context.md#context-fields): the exact field set per cause
 * kind (no param/retry/started/runtime/stopped, no internals), body views that are `{}` when
 * absent, indices overriding any same-named field, and the field re-basing of adjustCause (docs/behaviour/causes.md#field-diffs).
 */
import { assert, describe, it } from "@effect/vitest";
import { Diff } from "@kopf/structs";
import { HandlerCause, Registry } from "../src/index.ts";
import * as C from "./fixtures/causes.ts";

const RESOURCE_FIELDS = [
  "annotations",
  "body",
  "labels",
  "logger",
  "memo",
  "meta",
  "name",
  "namespace",
  "patch",
  "resource",
  "spec",
  "status",
  "uid",
];

describe("filterContext", () => {
  it.each([
    ["changing", C.changing(), [...RESOURCE_FIELDS, "diff", "new", "old", "reason"]],
    ["watching", C.watching(), [...RESOURCE_FIELDS, "event", "type"]],
    ["indexing", C.indexing(), RESOURCE_FIELDS],
    ["spawning", C.spawning(), RESOURCE_FIELDS],
    [
      "webhook",
      C.webhook(),
      [
        ...RESOURCE_FIELDS,
        "diff",
        "dryrun",
        "headers",
        "new",
        "old",
        "operation",
        "sslpeer",
        "subresource",
        "userinfo",
        "warnings",
      ],
    ],
  ] as const)("%s causes give exactly Kopf's kwargs", (_name, cause, expected) => {
    assert.sameMembers(Object.keys(HandlerCause.filterContext(cause)), [...expected]);
  });

  it("views the body: sections are {} when absent, names undefined", () => {
    const ctx = HandlerCause.filterContext(C.changing({ body: {} }));
    assert.deepStrictEqual(
      [ctx.spec, ctx.status, ctx.meta, ctx.labels, ctx.annotations],
      [{}, {}, {}, {}, {}],
    );
    assert.deepStrictEqual([ctx.uid, ctx.name, ctx.namespace], [undefined, undefined, undefined]);
  });

  it("views the body's sections and names", () => {
    const body = {
      metadata: { uid: "u", name: "n", namespace: "ns", labels: { l: "1" }, annotations: { a: "2" } },
      spec: { s: 1 },
      status: { t: 2 },
    };
    const ctx = HandlerCause.filterContext(C.watching({ body }));
    assert.strictEqual(ctx.body, body);
    assert.strictEqual(ctx.spec, body.spec);
    assert.strictEqual(ctx.status, body.status);
    assert.strictEqual(ctx.meta, body.metadata);
    assert.deepStrictEqual([ctx.uid, ctx.name, ctx.namespace], ["u", "n", "ns"]);
    assert.deepStrictEqual([ctx.labels, ctx.annotations], [{ l: "1" }, { a: "2" }]);
  });

  it.each(["body", "spec", "reason", "patch", "logger", "memo", "diff", "old", "new", "anything"])(
    "an index named %s overrides the field",
    (name) => {
      const ctx = HandlerCause.filterContext(C.changing({ indices: { [name]: "the-index" } }));
      assert.strictEqual((ctx as unknown as Record<string, unknown>)[name], "the-index");
    },
  );

  it("tells whether the object is being deleted", () => {
    assert.isFalse(HandlerCause.isDeleted(C.changing({ body: { metadata: { deletionTimestamp: null } } })));
    assert.isTrue(HandlerCause.isDeleted(C.changing({ body: { metadata: { deletionTimestamp: "2020" } } })));
  });
});

describe("adjustCause", () => {
  function fn() {}
  const handler = (field?: string) => {
    const registry = Registry.make();
    if (field === undefined) registry.on.update(C.SPEC, fn);
    else registry.on.update(C.SPEC, { field }, fn);
    return registry.changing[0]!;
  };
  const cause = C.changing({
    reason: "update",
    old: { spec: { a: { b: 1 } } },
    new: { spec: { a: { b: 2 }, c: 3 } },
    diff: Diff.diff({ spec: { a: { b: 1 } } }, { spec: { a: { b: 2 }, c: 3 } }),
  });

  it("leaves whole-object causes alone", () => {
    assert.strictEqual(HandlerCause.adjustCause(handler(), cause), cause);
  });

  it("re-bases old, new and diff on the field", () => {
    const adjusted = HandlerCause.adjustCause(handler("spec.a"), cause);
    assert.deepStrictEqual([adjusted.old, adjusted.new], [{ b: 1 }, { b: 2 }]);
    assert.deepStrictEqual(adjusted.diff, [{ op: "change", field: ["b"], old: 1, new: 2 }]);
  });

  it("gives undefined for an absent field", () => {
    const adjusted = HandlerCause.adjustCause(handler("spec.c"), cause);
    assert.deepStrictEqual([adjusted.old, adjusted.new], [undefined, 3]);
    assert.deepStrictEqual(adjusted.diff, [{ op: "add", field: [], old: null, new: 3 }]);
  });
});

describe("handlerContext and activityContext", () => {
  const started = new Date(0);
  const invocation = { param: { p: 1 }, retry: 2, started, runtime: 1500 };
  const INVOCATION_FIELDS = ["param", "retry", "runtime", "started"];

  it("adds the invocation fields and the sub-registry to a changing cause's context", () => {
    const subregistry = { parent: undefined, handlers: [] } as never;
    const ctx = HandlerCause.handlerContext(C.changing(), { ...invocation, subregistry });
    assert.sameMembers(Object.keys(ctx), [
      ...RESOURCE_FIELDS,
      "diff",
      "new",
      "old",
      "reason",
      ...INVOCATION_FIELDS,
      "subregistry",
    ]);
    assert.deepStrictEqual([ctx.param, ctx.retry, ctx.started, ctx.runtime], [{ p: 1 }, 2, started, 1500]);
    assert.strictEqual(ctx.subregistry, subregistry);
  });

  it("adds stopped to daemons' and timers' contexts", () => {
    const stopped = { isSet: () => false } as never;
    const ctx = HandlerCause.handlerContext(C.spawning(), { ...invocation, stopped });
    assert.sameMembers(Object.keys(ctx), [...RESOURCE_FIELDS, ...INVOCATION_FIELDS, "stopped"]);
    assert.strictEqual(ctx.stopped, stopped);
  });

  it("lets indices override the invocation fields too", () => {
    const ctx = HandlerCause.handlerContext(
      C.watching({ indices: { retry: "idx", param: "idx2" } }),
      invocation,
    );
    assert.deepStrictEqual([ctx.retry as unknown, ctx.param], ["idx", "idx2"]);
  });

  it("builds activity contexts with exactly Kopf's activity kwargs plus invocation fields", () => {
    const cause: HandlerCause.ActivityCause<{ s: number }> = {
      _tag: "ActivityCause",
      activity: "startup",
      settings: { s: 1 },
      logger: C.logger,
      memo: { m: 1 },
      indices: { idx: "i" },
    };
    const ctx = HandlerCause.activityContext(cause, invocation);
    assert.sameMembers(Object.keys(ctx), [
      "activity",
      "logger",
      "memo",
      "settings",
      ...INVOCATION_FIELDS,
      "idx",
    ]);
    assert.deepStrictEqual([ctx.activity, ctx.settings, ctx.memo], ["startup", { s: 1 }, { m: 1 }]);
  });
});
