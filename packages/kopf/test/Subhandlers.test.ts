/**
 * kopf.subhandler / kopf.register with an explicit or the ambient sub-registry, and their refusal
 * outside a handler without one;
 * the default lifecycle's get/set; filters and markers re-exported.
 */
import { assert, describe, it } from "@effect/vitest";
import { Registry as CoreRegistry, SubRegistry } from "@kopf/registry";
import { AmbientHandlers } from "@kopf/runtime";
import * as Effect from "effect/Effect";
import * as kopf from "../src/index.ts";

function createFn() {}
function task() {}

const parent = () => {
  const registry = CoreRegistry.make();
  registry.on.create("kopfexamples", createFn);
  return registry.changing[0]!;
};

describe("sub-handlers", () => {
  it("are declared into the given sub-registry with prefixed ids", () => {
    const sub = SubRegistry.make(parent());
    assert.strictEqual(kopf.subhandler({ registry: sub, id: "task_a" }, task), task);
    assert.strictEqual(kopf.register(task, { registry: sub, id: "task_b" }), task);
    assert.deepStrictEqual(
      sub.handlers.map((h) => h.id),
      ["createFn/task_a", "createFn/task_b"],
    );
  });

  it("find the running handler's sub-registry by themselves", () => {
    const sub = SubRegistry.make(parent());
    const binding = {
      handler: parent(),
      body: {},
      subregistry: sub,
      execute: () => Effect.void,
      executePromise: () => Promise.resolve(),
    };
    AmbientHandlers.runner.run(binding, () => {
      kopf.subhandler({ id: "task_a" }, task);
      kopf.register(task, { id: "task_b" });
    });
    assert.deepStrictEqual(
      sub.handlers.map((h) => h.id),
      ["createFn/task_a", "createFn/task_b"],
    );
  });

  it("are refused without a sub-registry", () => {
    assert.throws(
      () => kopf.subhandler({ id: "x" } as never, task),
      kopf.RegistrationError,
      "ctx.subregistry",
    );
    assert.throws(() => kopf.register(task, {} as never), kopf.RegistrationError, "ctx.subregistry");
  });
});

describe("lifecycles", () => {
  it("default to asap and can be set and reset", () => {
    assert.strictEqual(kopf.getDefaultLifecycle(), kopf.lifecycles.asap);
    kopf.setDefaultLifecycle(kopf.lifecycles.all_at_once);
    assert.strictEqual(kopf.getDefaultLifecycle(), kopf.lifecycles.all_at_once);
    kopf.setDefaultLifecycle(undefined);
    assert.strictEqual(kopf.getDefaultLifecycle(), kopf.lifecycles.asap);
  });
});

describe("filters", () => {
  it("are re-exported", () => {
    assert.isTrue(kopf.all_([])());
    assert.isFalse(kopf.any_([])());
    assert.isTrue(kopf.none_([])());
    assert.isFalse(kopf.not_(() => true)());
    assert.notStrictEqual<symbol>(kopf.PRESENT, kopf.ABSENT);
    assert.isDefined(kopf.EVERYTHING);
  });
});
