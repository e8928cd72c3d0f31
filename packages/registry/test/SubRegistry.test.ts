/**
 * Sub-handlers (docs/behaviour/processing.md#sub-handlers, Kopf's tests/registries/test_subhandlers_ids.py and the on.py checks):
 * ids prefixed with the parent's id (recursively, no field suffix), inherited fieldNeedsChange,
 * no selector/reason, old/new only under on.update/on.field parents, rejection under
 * non-changing parents, both declaration forms, and registration order.
 */
import { assert, describe, it } from "@effect/vitest";
import { Matching, RegistrationError, Registry, SubRegistry } from "../src/index.ts";
import * as C from "./fixtures/causes.ts";

const { SPEC } = C;

function create_fn() {}
function child() {}

const parentOf = (register: (r: Registry.Registry) => void) => {
  const registry = Registry.make();
  register(registry);
  const all = [...registry.changing, ...registry.watching, ...registry.spawning, ...registry.activities];
  return all[0]!;
};

const thrown = (f: () => unknown): RegistrationError => {
  try {
    f();
  } catch (e) {
    assert.instanceOf(e, RegistrationError);
    return e as RegistrationError;
  }
  assert.fail("expected a RegistrationError");
};

describe("SubRegistry", () => {
  it("prefixes ids with the parent's and keeps declaration order", () => {
    const sub = SubRegistry.make(parentOf((r) => r.on.create(SPEC, create_fn)));
    assert.strictEqual(sub.subhandler({ id: "item1" }, child), child);
    assert.strictEqual(sub.subhandler(child), child);
    assert.strictEqual(sub.register(child, { id: "item2" }), child);
    assert.deepStrictEqual(
      sub.handlers.map((h) => h.id),
      ["create_fn/item1", "create_fn/child", "create_fn/item2"],
    );
  });

  it("nests: grandchildren are prefixed with the full child id", () => {
    const sub = SubRegistry.make(parentOf((r) => r.on.create(SPEC, create_fn)));
    sub.subhandler({ id: "item1" }, child);
    const nested = SubRegistry.make(sub.handlers[0]!);
    nested.subhandler({ id: "sub" }, child);
    assert.deepStrictEqual(
      nested.handlers.map((h) => h.id),
      ["create_fn/item1/sub"],
    );
  });

  it("children have no selector or reason, and no field suffix in their ids", () => {
    const sub = SubRegistry.make(parentOf((r) => r.on.create(SPEC, { id: "p" }, create_fn)));
    sub.subhandler({ id: "c", field: "spec.x" }, child);
    const [h] = sub.handlers;
    assert.deepStrictEqual(
      [h?.id, h?.selector, h?.reason, h?.field],
      ["p/c", undefined, undefined, ["spec", "x"]],
    );
    assert.deepStrictEqual([h?.initial, h?.deleted, h?.requiresFinalizer], [false, false, false]);
  });

  it.each([
    ["on.create", (r: Registry.Registry) => r.on.create(SPEC, create_fn), false],
    ["on.update", (r: Registry.Registry) => r.on.update(SPEC, create_fn), true],
    ["on.field", (r: Registry.Registry) => r.on.field(SPEC, { field: "f" }, create_fn), true],
    ["on.resume", (r: Registry.Registry) => r.on.resume(SPEC, create_fn), false],
  ] as const)("under %s children inherit fieldNeedsChange=%s", (_name, register, expected) => {
    const sub = SubRegistry.make(parentOf(register));
    sub.subhandler({ id: "c" }, child);
    assert.strictEqual(sub.handlers[0]?.fieldNeedsChange, expected);
  });

  it.each([
    ["on.update", (r: Registry.Registry) => r.on.update(SPEC, create_fn), true],
    ["on.field", (r: Registry.Registry) => r.on.field(SPEC, { field: "f" }, create_fn), true],
    ["on.create", (r: Registry.Registry) => r.on.create(SPEC, create_fn), false],
    ["on.delete", (r: Registry.Registry) => r.on.delete(SPEC, create_fn), false],
    ["on.resume", (r: Registry.Registry) => r.on.resume(SPEC, create_fn), false],
  ] as const)("old/new filters under %s allowed: %s", (_name, register, allowed) => {
    const sub = SubRegistry.make(parentOf(register));
    const declare = () => sub.subhandler({ id: "c", field: "spec.x", old: "a", new: "b" }, child);
    if (allowed) {
      declare();
      assert.deepStrictEqual([sub.handlers[0]?.old, sub.handlers[0]?.new], ["a", "b"]);
    } else {
      const error = thrown(declare);
      assert.strictEqual(error.reason, "OldNewOutsideUpdate");
      assert.strictEqual(error.message, "Filters old=/new= can only be used in update handlers.");
    }
  });

  it.each([
    ["on.event", (r: Registry.Registry) => r.on.event(SPEC, create_fn)],
    ["a daemon", (r: Registry.Registry) => r.on.daemon(SPEC, create_fn)],
    ["on.startup", (r: Registry.Registry) => r.on.startup(create_fn)],
  ] as const)("is refused under %s", (_name, register) => {
    const sub = SubRegistry.make(parentOf(register));
    const error = thrown(() => sub.subhandler({ id: "c" }, child));
    assert.strictEqual(error.reason, "SubhandlerOutsideChanging");
    assert.strictEqual(error.message, "Sub-handlers are only supported for resource-changing handlers.");
    assert.lengthOf(sub.handlers, 0);
  });

  it("validates options like top-level registrations", () => {
    const sub = SubRegistry.make(parentOf((r) => r.on.update(SPEC, create_fn)));
    assert.strictEqual(thrown(() => sub.subhandler({ value: "x" }, child)).reason, "FilterWithoutField");
    assert.strictEqual(thrown(() => sub.register(child, { field: "x" } as never)).reason, "InvalidOption");
    assert.strictEqual(thrown(() => sub.subhandler([() => {}][0]!)).reason, "AnonymousHandler");
  });

  it("children are selected for the parent's cause by the same rules, on any resource", () => {
    const sub = SubRegistry.make(parentOf((r) => r.on.update(SPEC, create_fn)));
    sub.subhandler({ id: "always" }, child);
    sub.subhandler({ id: "changed", field: "known-field" }, child);
    sub.subhandler({ id: "unchanged", field: "other-field" }, child);
    sub.subhandler({ id: "labelled", labels: { known: "other" } }, child);
    const cause = { ...C.withDiff({ reason: "update" }), resource: C.OTHER_RESOURCE };
    assert.deepStrictEqual(
      Matching.changingHandlers(sub.handlers, cause).map((h) => h.id),
      ["create_fn/always", "create_fn/changed"],
    );
  });
});
