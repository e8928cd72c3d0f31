/**
 * Registration calls (docs/behaviour/registration.md#handler-kinds, docs/behaviour/registration.md#options, docs/behaviour/registration.md#validation-at-registration, docs/behaviour/registration.md#handler-ids; Kopf's tests/registries/test_decorators.py and
 * test_id_detection.py): both call shapes, the handler returned unchanged, the bucket and fixed
 * fields of every decorator with their defaults, ids with field suffixes (not for index
 * handlers), the registration-time errors with Kopf's messages, and the typing of handler
 * contexts (checked by the type checker).
 */
import { assert, describe, expectTypeOf, it } from "@effect/vitest";
import type { RawBody, RawEventType } from "@kopf/structs";
import * as Effect from "effect/Effect";
import {
  ABSENT,
  type Activity,
  type ChangingContext,
  type DaemonStopped,
  type Index,
  PRESENT,
  type Reason,
  RegistrationError,
  Registry,
  type SubRegistry,
} from "../src/index.ts";
import { SPEC } from "./fixtures/causes.ts";

function some_fn() {}

const BEHAVIOUR_DEFAULTS = {
  param: undefined,
  errors: undefined,
  timeout: undefined,
  retries: undefined,
  backoff: undefined,
};
const FILTER_DEFAULTS = {
  labels: undefined,
  annotations: undefined,
  when: undefined,
  field: undefined,
  value: undefined,
};

const registrationError = (register: () => unknown): RegistrationError => {
  try {
    register();
  } catch (e) {
    assert.instanceOf(e, RegistrationError);
    return e as RegistrationError;
  }
  assert.fail("expected a RegistrationError");
};

describe("call shapes", () => {
  it("returns the handler unchanged (both shapes)", () => {
    const registry = Registry.make();
    assert.strictEqual(registry.on.create(SPEC, some_fn), some_fn);
    assert.strictEqual(registry.on.create(SPEC, { id: "x" }, some_fn), some_fn);
    assert.strictEqual(registry.on.startup(some_fn), some_fn);
    assert.strictEqual(registry.on.startup({ id: "y" }, some_fn), some_fn);
    assert.deepStrictEqual(
      registry.changing.map((h) => h.id),
      ["some_fn", "x"],
    );
    assert.deepStrictEqual(
      registry.activities.map((h) => h.id),
      ["some_fn", "y"],
    );
  });

  it("rejects a non-function handler and non-object options", () => {
    const registry = Registry.make();
    assert.strictEqual(
      registrationError(() => registry.on.create(SPEC, "x" as never)).reason,
      "InvalidOption",
    );
    assert.strictEqual(
      registrationError(() => registry.on.create(SPEC, "x" as never, some_fn)).reason,
      "InvalidOption",
    );
  });
});

describe("minimal registrations and their defaults", () => {
  it.each([
    ["startup", "startup"],
    ["cleanup", "cleanup"],
    ["login", "authentication"],
    ["probe", "probe"],
  ] as const)("on.%s registers the %s activity", (call, activity) => {
    const registry = Registry.make();
    registry.on[call](some_fn);
    assert.deepStrictEqual(registry.activities, [
      {
        _tag: "ActivityHandler",
        id: "some_fn",
        fn: some_fn,
        ...BEHAVIOUR_DEFAULTS,
        activity,
        fallback: false,
      },
    ]);
  });

  const changing = {
    resume: {
      reason: undefined,
      initial: true,
      deleted: false,
      requiresFinalizer: false,
      fieldNeedsChange: false,
    },
    create: {
      reason: "create",
      initial: false,
      deleted: false,
      requiresFinalizer: false,
      fieldNeedsChange: false,
    },
    update: {
      reason: "update",
      initial: false,
      deleted: false,
      requiresFinalizer: false,
      fieldNeedsChange: true,
    },
    delete: {
      reason: "delete",
      initial: false,
      deleted: false,
      requiresFinalizer: true,
      fieldNeedsChange: false,
    },
  } as const;

  it.each(Object.entries(changing))("on.%s", (call, fixed) => {
    const registry = Registry.make();
    registry.on[call as keyof typeof changing](SPEC, some_fn);
    const [handler] = registry.changing;
    assert.deepStrictEqual({ ...handler, selector: undefined }, {
      _tag: "ChangingHandler",
      id: "some_fn",
      fn: some_fn,
      ...BEHAVIOUR_DEFAULTS,
      ...FILTER_DEFAULTS,
      selector: undefined,
      old: undefined,
      new: undefined,
      ...fixed,
    } as never);
    assert.strictEqual(handler?.selector?.group, "kopf.dev");
    assert.strictEqual(handler?.selector?.anyName, "kopfexamples");
  });

  it("on.field needs the field and stores it as a path", () => {
    const registry = Registry.make();
    registry.on.field(SPEC, { field: "spec.field" }, some_fn);
    const [handler] = registry.changing;
    assert.deepStrictEqual(handler?.field, ["spec", "field"]);
    assert.strictEqual(handler?.id, "some_fn/spec.field");
    assert.strictEqual(handler?.reason, undefined);
    assert.isTrue(handler?.fieldNeedsChange);
    assert.strictEqual(
      registrationError(() => registry.on.field(SPEC, {} as never, some_fn)).reason,
      "MissingField",
    );
  });

  it("on.delete with optional requires no finalizer; on.resume with deleted", () => {
    const registry = Registry.make();
    registry.on.delete(SPEC, { optional: true }, some_fn);
    registry.on.resume(SPEC, { deleted: true }, some_fn);
    assert.deepStrictEqual(
      registry.changing.map((h) => [h.requiresFinalizer, h.deleted]),
      [
        [false, false],
        [false, true],
      ],
    );
  });

  it("on.event, on.index, daemons, timers and webhooks go to their buckets", () => {
    const registry = Registry.make();
    registry.on.event(SPEC, some_fn);
    registry.on.index(SPEC, some_fn);
    registry.on.daemon(SPEC, some_fn);
    registry.on.timer(SPEC, { interval: 5, sharp: true, idle: 1, initialDelay: 2 }, some_fn);
    registry.on.validate(SPEC, some_fn);
    registry.on.mutate(SPEC, { operations: ["CREATE"], subresource: "status", persistent: true }, some_fn);
    assert.deepStrictEqual(
      registry.watching.map((h) => h._tag),
      ["WatchingHandler"],
    );
    assert.deepStrictEqual(
      registry.indexing.map((h) => h._tag),
      ["IndexingHandler"],
    );
    const [daemon, timer] = registry.spawning;
    assert.strictEqual(daemon?._tag, "DaemonHandler");
    assert.isTrue(daemon?.requiresFinalizer);
    assert.strictEqual(timer?._tag, "TimerHandler");
    if (timer?._tag === "TimerHandler") {
      assert.deepStrictEqual([timer.interval, timer.sharp, timer.idle, timer.initialDelay], [5, true, 1, 2]);
    }
    const [validate, mutate] = registry.webhooks;
    assert.deepStrictEqual(
      [validate?.reason, validate?.operations, validate?.subresource],
      ["validating", undefined, undefined],
    );
    assert.deepStrictEqual(
      [mutate?.reason, mutate?.operations, mutate?.subresource, mutate?.persistent],
      ["mutating", new Set(["CREATE"]), "status", true],
    );
  });

  it("keeps behaviour options", () => {
    const registry = Registry.make();
    const when = () => true;
    registry.on.update(
      SPEC,
      {
        id: "u",
        param: { p: 1 },
        errors: "permanent",
        timeout: 30,
        retries: 3,
        backoff: 5,
        labels: { a: PRESENT },
        when,
      },
      some_fn,
    );
    const [h] = registry.changing;
    assert.deepStrictEqual(
      [h?.param, h?.errors, h?.timeout, h?.retries, h?.backoff, h?.labels, h?.when],
      [{ p: 1 }, "permanent", 30, 3, 5, { a: PRESENT }, when],
    );
  });
});

describe("ids", () => {
  it.each([
    [
      "create",
      (r: Registry.Registry) => r.on.create(SPEC, { id: "id", field: "field.subfield" }, some_fn),
      "id/field.subfield",
    ],
    [
      "update",
      (r: Registry.Registry) => r.on.update(SPEC, { field: ["field", "subfield"] }, some_fn),
      "some_fn/field.subfield",
    ],
    ["event", (r: Registry.Registry) => r.on.event(SPEC, { id: "id", field: "f" }, some_fn), "id/f"],
    ["daemon", (r: Registry.Registry) => r.on.daemon(SPEC, { field: "f" }, some_fn), "some_fn/f"],
    ["validate", (r: Registry.Registry) => r.on.validate(SPEC, { id: "id", field: "f" }, some_fn), "id/f"],
    [
      "index (no suffix: HEAD quirk)",
      (r: Registry.Registry) => r.on.index(SPEC, { id: "id", field: "f" }, some_fn),
      "id",
    ],
  ] as const)("%s", (_name, register, expected) => {
    const registry = Registry.make();
    register(registry);
    const all = [
      ...registry.changing,
      ...registry.watching,
      ...registry.spawning,
      ...registry.webhooks,
      ...registry.indexing,
    ];
    assert.deepStrictEqual(
      all.map((h) => h.id),
      [expected],
    );
  });

  it("anonymous handlers need an explicit id", () => {
    const registry = Registry.make();
    const error = registrationError(() => registry.on.create(SPEC, [() => {}][0]!));
    assert.strictEqual(error.reason, "AnonymousHandler");
    assert.include(error.message, '{ id: "');
    assert.doesNotThrow(() => registry.on.create(SPEC, { id: "anon" }, [() => {}][0]!));
  });
});

describe("registration-time errors (docs/behaviour/registration.md#validation-at-registration)", () => {
  const on = () => Registry.make().on;
  it.each([
    [
      "value without field",
      () => on().create(SPEC, { value: "x" }, some_fn),
      "FilterWithoutField",
      "Value/old/new filters are specified without a mandatory field.",
    ],
    [
      "old without field",
      () => on().update(SPEC, { old: "x" }, some_fn),
      "FilterWithoutField",
      "Value/old/new filters are specified without a mandatory field.",
    ],
    [
      "new without field",
      () => on().update(SPEC, { new: PRESENT }, some_fn),
      "FilterWithoutField",
      "Value/old/new filters are specified without a mandatory field.",
    ],
    [
      "value with old",
      () => on().update(SPEC, { field: "f", value: "x", old: "y" }, some_fn),
      "ValueWithOldNew",
      "Either value= or old=/new= can be defined, not both.",
    ],
    [
      "value with new",
      () => on().field(SPEC, { field: "f", value: ABSENT, new: "y" }, some_fn),
      "ValueWithOldNew",
      "Either value= or old=/new= can be defined, not both.",
    ],
    [
      "null label filter",
      () => on().create(SPEC, { labels: { a: null as never } }, some_fn),
      "NullMetaFilter",
      "`None` for label filters is not supported; use kopf.PRESENT or kopf.ABSENT",
    ],
    [
      "undefined annotation filter",
      () => on().create(SPEC, { annotations: { a: undefined as never } }, some_fn),
      "NullMetaFilter",
      "`None` for annotation filters is not supported",
    ],
    [
      "empty operations",
      () => on().validate(SPEC, { operations: [] }, some_fn),
      "EmptyOperations",
      "Operations should be either None or non-empty.",
    ],
    [
      "negative timeout",
      () => on().create(SPEC, { timeout: -1 }, some_fn),
      "InvalidOption",
      "timeout must be a non-negative number",
    ],
    [
      "fractional retries",
      () => on().create(SPEC, { retries: 1.5 }, some_fn),
      "InvalidOption",
      "retries must be a non-negative integer",
    ],
    [
      "unknown errors mode",
      () => on().create(SPEC, { errors: "sometimes" as never }, some_fn),
      "InvalidOption",
      "errors must be",
    ],
    [
      "NaN interval",
      () => on().timer(SPEC, { interval: Number.NaN }, some_fn),
      "InvalidOption",
      "interval must be",
    ],
    [
      "bad initialDelay",
      () => on().daemon(SPEC, { initialDelay: "soon" as never }, some_fn),
      "InvalidOption",
      "initialDelay",
    ],
    [
      "old on on.create (unknown option)",
      () => on().create(SPEC, { old: "x" } as never, some_fn),
      "InvalidOption",
      'on.create: unknown option "old"',
    ],
    [
      "errors on on.event",
      () => on().event(SPEC, { errors: "ignored" } as never, some_fn),
      "InvalidOption",
      'on.event: unknown option "errors"',
    ],
    [
      "a typo",
      () => on().create(SPEC, { label: { a: "b" } } as never, some_fn),
      "InvalidOption",
      'unknown option "label"',
    ],
    ["bad field", () => on().create(SPEC, { field: 5 as never }, some_fn), "InvalidOption", "field must be"],
    [
      "ambiguous resource",
      () => on().create({ plural: "a", kind: "B" }, some_fn),
      "InvalidResource",
      "Ambiguous resource specification with ['B', 'a']",
    ],
    [
      "unspecific resource",
      () => on().create({ group: "kopf.dev" }, some_fn),
      "InvalidResource",
      "Unspecific resource with no names.",
    ],
    [
      "empty name",
      () => on().create({ kind: "" }, some_fn),
      "InvalidResource",
      "Names must not be empty strings",
    ],
    [
      "four parts",
      () => on().create(["a", "b", "c", "d"] as never, some_fn),
      "InvalidResource",
      "1 to 3 strings",
    ],
  ] as const)("%s", (_name, register, reason, message) => {
    const error = registrationError(register);
    assert.strictEqual(error.reason, reason);
    assert.include(error.message, message);
  });

  it("merges the deprecated operation into operations", () => {
    const registry = Registry.make();
    registry.on.validate(SPEC, { operation: "DELETE", operations: ["CREATE"] }, some_fn);
    assert.deepStrictEqual(registry.webhooks[0]?.operations, new Set(["CREATE", "DELETE"]));
  });

  it("a failed registration registers nothing", () => {
    const registry = Registry.make();
    registrationError(() => registry.on.create(SPEC, { value: 1 }, some_fn));
    assert.lengthOf(registry.changing, 0);
  });
});

describe("handler typing", () => {
  interface KopfExample {
    readonly apiVersion: "kopf.dev/v1";
    readonly kind: "KopfExample";
    readonly metadata?: { readonly name?: string };
    readonly spec?: { readonly size: string; readonly items?: ReadonlyArray<string> };
  }

  it("types unannotated handlers by kind, with RawBody bodies", () => {
    const registry = Registry.make<{ readonly flag: boolean }>();
    registry.on.create(SPEC, function createFn(ctx) {
      expectTypeOf(ctx.reason).toEqualTypeOf<Reason>();
      expectTypeOf(ctx.body).toEqualTypeOf<RawBody>();
      expectTypeOf(ctx.retry).toEqualTypeOf<number>();
      expectTypeOf(ctx.started).toEqualTypeOf<Date>();
      expectTypeOf(ctx.subregistry).toEqualTypeOf<SubRegistry.SubRegistry>();
    });
    registry.on.event(SPEC, function eventFn(ctx) {
      expectTypeOf(ctx.type).toEqualTypeOf<RawEventType | null>();
    });
    registry.on.daemon(SPEC, function daemonFn(ctx) {
      expectTypeOf(ctx.stopped).toEqualTypeOf<DaemonStopped>();
    });
    registry.on.validate(SPEC, function validateFn(ctx) {
      expectTypeOf(ctx.warnings).toEqualTypeOf<Array<string>>();
      expectTypeOf(ctx.old).toEqualTypeOf<RawBody | undefined>();
    });
    registry.on.startup(function startupFn(ctx) {
      expectTypeOf(ctx.settings).toEqualTypeOf<{ readonly flag: boolean }>();
      expectTypeOf(ctx.activity).toEqualTypeOf<Activity>();
    });
    assert.lengthOf(registry.changing, 1);
  });

  it("types settings in startup handlers by the second type parameter, in other activities by the first", () => {
    const registry = Registry.make<{ readonly flag: boolean }, { flag: boolean }>();
    registry.on.startup(function startupFn({ settings }) {
      expectTypeOf(settings).toEqualTypeOf<{ flag: boolean }>();
      settings.flag = true;
    });
    registry.on.cleanup(function cleanupFn({ settings }) {
      expectTypeOf(settings).toEqualTypeOf<{ readonly flag: boolean }>();
    });
    registry.on.daemon(SPEC, function daemonFn({ stopped }) {
      expectTypeOf(stopped).toExtend<AbortSignal>();
    });
    const anyRegistry: Registry.Registry<any> = registry;
    assert.lengthOf(anyRegistry.activities, 2);
  });

  it("infers the body type from an annotated handler, and accepts declared indices", () => {
    const registry = Registry.make();
    registry.on.update(SPEC, { field: "spec.size" }, function resize(ctx: ChangingContext<KopfExample>) {
      expectTypeOf(ctx.spec).toEqualTypeOf<Partial<NonNullable<KopfExample["spec"]>>>();
    });
    registry.on.create(
      SPEC,
      function withIndex(ctx: ChangingContext<RawBody, { byName: Index<string, string> }>) {
        expectTypeOf(ctx.byName).toEqualTypeOf<Index<string, string>>();
      },
    );
    registry.on.create(
      SPEC,
      { when: (ctx) => ctx.body.spec?.size === "big", labels: { app: (value) => value === "x" } },
      function typedFilters(_ctx: ChangingContext<KopfExample>) {},
    );
    assert.lengthOf(registry.changing, 3);
  });

  it("accepts sync, async and Effect handlers", () => {
    const registry = Registry.make();
    registry.on.create(SPEC, function syncFn() {
      return { ok: true };
    });
    registry.on.create(SPEC, async function asyncFn() {
      return 1;
    });
    registry.on.create(SPEC, function effectFn({ name }) {
      return Effect.succeed(name);
    });
    assert.lengthOf(registry.changing, 3);
  });
});
