/**
 * Registries (Kopf's tests/registries/test_registering.py, test_handler_getting.py): buckets in
 * registration order, per-resource accessors with de-duplication, hasHandlers, selectors of all
 * or one bucket, extra fields (watching/changing/spawning but not indexing), activity handlers
 * with fallbacks used only when no regular handler exists, and independence of registries.
 */
import { assert, describe, it } from "@effect/vitest";
import type { AnyHandler } from "../src/index.ts";
import { Registry } from "../src/index.ts";
import { OTHER_RESOURCE, RESOURCE, SPEC } from "./fixtures/causes.ts";

function fn1() {}
function fn2() {}

describe("buckets and accessors", () => {
  it("keeps handlers per bucket in registration order, as copies", () => {
    const registry = Registry.make();
    registry.on.create(SPEC, fn1);
    registry.on.update("pods", fn2);
    const first = registry.changing;
    registry.on.delete(SPEC, fn2);
    assert.lengthOf(first, 2);
    assert.deepStrictEqual(
      registry.changing.map((h) => [h.fn, h.reason]),
      [
        [fn1, "create"],
        [fn2, "update"],
        [fn2, "delete"],
      ],
    );
  });

  it("selects handlers per resource (de-duplicated per cause, after matching)", () => {
    const registry = Registry.make();
    registry.on.create(SPEC, { id: "a" }, fn1);
    registry.on.create(SPEC, { id: "a" }, fn1);
    registry.on.create("pods", fn2);
    registry.on.event(SPEC, fn1);
    registry.on.daemon("pods", fn1);
    registry.on.index(SPEC, fn1);
    registry.on.validate("pods", fn1);
    assert.deepStrictEqual(
      registry.changingFor(RESOURCE).map((h) => h.id),
      ["a", "a"],
    );
    assert.deepStrictEqual(
      registry.changingFor(OTHER_RESOURCE).map((h) => h.id),
      ["fn2"],
    );
    assert.lengthOf(registry.watchingFor(RESOURCE), 1);
    assert.lengthOf(registry.watchingFor(OTHER_RESOURCE), 0);
    assert.lengthOf(registry.spawningFor(OTHER_RESOURCE), 1);
    assert.lengthOf(registry.indexingFor(RESOURCE), 1);
    assert.lengthOf(registry.webhooksFor(OTHER_RESOURCE), 1);
    assert.isTrue(registry.hasChangingHandlers(RESOURCE));
    assert.isTrue(registry.hasHandlers("spawning", OTHER_RESOURCE));
    assert.isFalse(registry.hasHandlers("spawning", RESOURCE));
    assert.isFalse(registry.hasHandlers("webhooks", RESOURCE));
  });

  it("lists distinct selectors, of all buckets or one", () => {
    const registry = Registry.make();
    registry.on.create(SPEC, fn1);
    registry.on.update(SPEC, fn1);
    registry.on.event("pods", fn1);
    registry.on.index("configmaps", fn1);
    assert.deepStrictEqual(
      registry.selectors().map((s) => s.anyName),
      ["kopfexamples", "pods", "configmaps"],
    );
    assert.deepStrictEqual(
      registry.selectors("indexing").map((s) => s.anyName),
      ["configmaps"],
    );
    assert.deepStrictEqual(registry.selectors("webhooks"), []);
  });

  it("lists the extra fields of the resource's watching, changing and spawning handlers", () => {
    const registry = Registry.make();
    registry.on.update(SPEC, { field: "spec.a" }, fn1);
    registry.on.field(SPEC, { field: ["spec", "a"] }, fn2);
    registry.on.event(SPEC, { field: "status.b" }, fn1);
    registry.on.timer(SPEC, { field: "metadata.c" }, fn1);
    registry.on.index(SPEC, { field: "spec.indexed" }, fn1);
    registry.on.create("pods", { field: "spec.pods" }, fn1);
    registry.on.create(SPEC, fn1);
    assert.deepStrictEqual(registry.extraFields(RESOURCE), [
      ["status", "b"],
      ["spec", "a"],
      ["metadata", "c"],
    ]);
  });

  it("registries are independent", () => {
    const a = Registry.make();
    const b = Registry.make();
    a.on.create(SPEC, fn1);
    assert.lengthOf(a.changing, 1);
    assert.lengthOf(b.changing, 0);
  });
});

describe("activity handlers", () => {
  const fallback = (id: string): AnyHandler => ({
    _tag: "ActivityHandler",
    id,
    fn: fn2,
    param: undefined,
    errors: "ignored",
    timeout: undefined,
    retries: undefined,
    backoff: undefined,
    activity: "authentication",
    fallback: true,
  });

  it("returns the handlers of the activity only", () => {
    const registry = Registry.make();
    registry.on.startup(fn1);
    registry.on.cleanup(fn2);
    registry.on.startup({ id: "second" }, fn2);
    assert.deepStrictEqual(
      registry.activityHandlers("startup").map((h) => h.id),
      ["fn1", "second"],
    );
    assert.deepStrictEqual(
      registry.activityHandlers("probe").map((h) => h.id),
      [],
    );
  });

  it("uses fallbacks only when no regular handler exists", () => {
    const registry = Registry.make();
    registry.append(fallback("login_with_kubeconfig"));
    registry.append(fallback("login_with_service_account"));
    assert.deepStrictEqual(
      registry.activityHandlers("authentication").map((h) => h.id),
      ["login_with_kubeconfig", "login_with_service_account"],
    );
    registry.on.login(fn1);
    assert.deepStrictEqual(
      registry.activityHandlers("authentication").map((h) => h.id),
      ["fn1"],
    );
  });

  it("de-duplicates by (fn, id)", () => {
    const registry = Registry.make();
    registry.on.probe(fn1);
    registry.on.probe(fn1);
    assert.lengthOf(registry.activityHandlers("probe"), 1);
  });
});
