/**
 * The facade's registration calls: they register in the default registry of the moment (Kopf's
 * get/set_default_registry), in both call shapes, with `kopf.daemon`/`kopf.timer`/`kopf.index`
 * as aliases; kubernetes-fluent-client model classes as resources (built-in kinds, kinds added
 * with RegisterKind, unknown classes rejected), with `body` typed as the model.
 */
import { assert, beforeEach, describe, expectTypeOf, it } from "@effect/vitest";
import { GenericKind, kind, RegisterKind } from "kubernetes-fluent-client";
import * as kopf from "../src/index.ts";

function createFn() {}

beforeEach(() => {
  kopf.setDefaultRegistry(kopf.Registry.make());
});

describe("default registry", () => {
  it("is created once and reused", () => {
    assert.strictEqual(kopf.getDefaultRegistry(), kopf.getDefaultRegistry());
  });

  it("receives kopf.on registrations, in both call shapes, returning the handler", () => {
    assert.strictEqual(kopf.on.create("kopfexamples", createFn), createFn);
    assert.strictEqual(kopf.on.update("kopfexamples", { id: "upd", field: "spec.x" }, createFn), createFn);
    assert.strictEqual(kopf.on.startup(createFn), createFn);
    assert.strictEqual(kopf.on.probe({ id: "p" }, createFn), createFn);
    const registry = kopf.getDefaultRegistry();
    assert.deepStrictEqual(
      registry.changing.map((h) => h.id),
      ["createFn", "upd/spec.x"],
    );
    assert.deepStrictEqual(
      registry.activities.map((h) => [h.id, h.activity]),
      [
        ["createFn", "startup"],
        ["p", "probe"],
      ],
    );
  });

  it("is replaced by setDefaultRegistry: later registrations go to the new one", () => {
    const first = kopf.getDefaultRegistry();
    kopf.on.create("kopfexamples", createFn);
    const second = kopf.Registry.make();
    kopf.setDefaultRegistry(second);
    kopf.on.delete("kopfexamples", createFn);
    assert.strictEqual(kopf.getDefaultRegistry(), second);
    assert.deepStrictEqual(
      first.changing.map((h) => h.reason),
      ["create"],
    );
    assert.deepStrictEqual(
      second.changing.map((h) => h.reason),
      ["delete"],
    );
  });

  it("kopf.daemon, kopf.timer and kopf.index register like their kopf.on forms", () => {
    kopf.daemon("kopfexamples", createFn);
    kopf.timer("kopfexamples", { interval: 10 }, createFn);
    kopf.index("kopfexamples", createFn);
    kopf.on.daemon("kopfexamples", { id: "d2" }, createFn);
    const registry = kopf.getDefaultRegistry();
    assert.deepStrictEqual(
      registry.spawning.map((h) => [h._tag, h.id]),
      [
        ["DaemonHandler", "createFn"],
        ["TimerHandler", "createFn"],
        ["DaemonHandler", "d2"],
      ],
    );
    assert.deepStrictEqual(
      registry.indexing.map((h) => h.id),
      ["createFn"],
    );
  });

  it("types activities' settings as the operator settings (mutable in startup handlers) and resource contexts by kind", () => {
    kopf.on.startup(function configure({ settings }) {
      expectTypeOf(settings).toEqualTypeOf<kopf.Settings.MutableSettings>();
      settings.posting.level = "Warn"; // Kopf's pattern: startup handlers assign settings
      settings.admission.managed = "auto.kopf.dev";
    });
    kopf.Registry.make().on.startup(function configure({ settings }) {
      expectTypeOf(settings).toEqualTypeOf<kopf.Settings.MutableSettings>();
    });
    for (const activity of [kopf.on.cleanup, kopf.on.probe, kopf.on.login]) {
      activity(function readOnly({ settings }) {
        expectTypeOf(settings).toEqualTypeOf<kopf.OperatorSettings>();
      });
    }
    kopf.on.create("kopfexamples", function typed(ctx) {
      expectTypeOf(ctx).toEqualTypeOf<kopf.ChangingContext>();
    });
    kopf.timer("kopfexamples", { interval: 1 }, function ticking({ stopped }) {
      expectTypeOf(stopped).toEqualTypeOf<kopf.DaemonStopped>();
      expectTypeOf(stopped).toExtend<AbortSignal>(); // fetch(url, { signal: stopped })
      expectTypeOf(stopped.reason).toEqualTypeOf<ReadonlySet<kopf.DaemonStoppingReason> | undefined>();
    });
    assert.lengthOf(kopf.getDefaultRegistry().activities, 4);
  });

  it("explicit registries stay separate from the default one", () => {
    const own = kopf.Registry.make();
    own.on.create("kopfexamples", createFn);
    assert.lengthOf(own.changing, 1);
    assert.lengthOf(kopf.getDefaultRegistry().changing, 0);
  });

  it("throws RegistrationError at registration time", () => {
    assert.throws(() => kopf.on.create("kopfexamples", { value: "x" }, createFn), kopf.RegistrationError);
    assert.lengthOf(kopf.getDefaultRegistry().changing, 0);
  });
});

describe("kubernetes-fluent-client model classes as resources", () => {
  const pods = kopf.Resource.make({
    group: "",
    version: "v1",
    plural: "pods",
    kind: "Pod",
    namespaced: true,
  });
  const deployments = kopf.Resource.make({
    group: "apps",
    version: "v1",
    plural: "deployments",
    kind: "Deployment",
  });

  it.each([
    ["kind.Pod", kind.Pod, { group: "", version: "v1", kind: "Pod" }, pods],
    ["kind.Deployment", kind.Deployment, { group: "apps", version: "v1", kind: "Deployment" }, deployments],
  ] as const)("%s resolves to its group, version and kind", (_name, model, names, resource) => {
    kopf.on.create(model as typeof kind.Pod, createFn);
    const [handler] = kopf.getDefaultRegistry().changing;
    const selector = handler?.selector;
    assert.deepStrictEqual(
      [selector?.group, selector?.version, selector?.kind],
      [names.group, names.version, names.kind],
    );
    assert.isTrue(kopf.Selector.check(selector!, resource));
    assert.isFalse(kopf.Selector.check(selector!, resource === pods ? deployments : pods));
  });

  it("resolves kinds registered with RegisterKind", () => {
    class KopfExampleModel extends GenericKind {}
    RegisterKind(KopfExampleModel, { group: "kopf.dev", version: "v1", kind: "KopfExample" });
    kopf.on.event(KopfExampleModel, createFn);
    const selector = kopf.getDefaultRegistry().watching[0]?.selector;
    assert.deepStrictEqual(
      [selector?.group, selector?.version, selector?.kind],
      ["kopf.dev", "v1", "KopfExample"],
    );
  });

  it("resolves explicit registries made by the facade too", () => {
    const own = kopf.Registry.make();
    own.on.daemon(kind.Secret, createFn);
    assert.strictEqual(own.spawning[0]?.selector?.kind, "Secret");
  });

  it("rejects classes unknown to kubernetes-fluent-client", () => {
    class NotRegisteredModel extends GenericKind {}
    try {
      kopf.on.create(NotRegisteredModel, createFn);
      assert.fail("expected a RegistrationError");
    } catch (e) {
      assert.instanceOf(e, kopf.RegistrationError);
      assert.strictEqual((e as kopf.RegistrationError).reason, "UnresolvedModel");
      assert.include((e as kopf.RegistrationError).message, "NotRegisteredModel");
    }
  });

  it("still treats plain functions as resource predicates", () => {
    const isPods = (r: kopf.Resource.Resource) => r.plural === "pods";
    kopf.on.event(isPods, createFn);
    assert.strictEqual(kopf.getDefaultRegistry().watching[0]?.selector?.fn, isPods);
  });

  it("types body, spec and meta as the model", () => {
    kopf.on.create(kind.Pod, function podCreated(ctx) {
      expectTypeOf(ctx.body).toEqualTypeOf<InstanceType<typeof kind.Pod>>();
      expectTypeOf(ctx.spec).toEqualTypeOf<Partial<NonNullable<InstanceType<typeof kind.Pod>["spec"]>>>();
      expectTypeOf(ctx.meta.name).toEqualTypeOf<string | undefined>();
    });
    kopf.on.update(kind.Deployment, { field: "spec.replicas" }, function scaled({ body }) {
      expectTypeOf(body.spec).toEqualTypeOf<InstanceType<typeof kind.Deployment>["spec"]>();
    });
    assert.lengthOf(kopf.getDefaultRegistry().changing, 2);
  });
});
