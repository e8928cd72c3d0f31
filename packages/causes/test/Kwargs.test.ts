/**
 * docs/behaviour/handler-context.md#context-fields for the causes built here: the context keys handlers' filters receive from the
 * registry's `filterContext` for changing, watching and spawning causes are exactly Kopf's
 * kwargs sets (no `initial`, `deleted` or `reset` leak in), and indices override same-named keys.
 */
import { describe, expect, it } from "@effect/vitest";
import { HandlerCause } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import type { ResourceCause } from "../src/index.ts";
import { ChangeCause, ResourceMemory, SpawningCause, WatchingCause } from "../src/index.ts";

const BODY_KEYS = ["body", "spec", "status", "meta", "uid", "name", "namespace", "labels", "annotations"];
const RESOURCE_KEYS = ["logger", "resource", "patch", "memo", ...BODY_KEYS];

const context = (indices: Readonly<Record<string, unknown>>): ResourceCause.ResourceContext => ({
  resource: Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" }),
  patch: {} as ResourceCause.ResourceContext["patch"],
  logger: {} as ResourceCause.ResourceContext["logger"],
  memo: {},
  indices,
});

const body = { metadata: { uid: "u", name: "n", namespace: "ns" }, spec: { a: 1 } };
const inputs = {
  type: null,
  body,
  finalizer: "fin",
  old: undefined,
  new: { spec: { a: 1 } },
  diff: [],
  initial: ResourceMemory.isInitial(ResourceMemory.fresh(null)),
} as const;

describe("filter contexts of the built causes (docs/behaviour/handler-context.md#context-fields)", () => {
  it.each([
    [
      "changing",
      () => HandlerCause.filterContext(ChangeCause.make(inputs, context({}))),
      ["reason", "diff", "old", "new"],
    ],
    [
      "watching",
      () => HandlerCause.filterContext(WatchingCause.make({ type: "ADDED", object: body }, context({}))),
      ["event", "type"],
    ],
    ["spawning", () => HandlerCause.filterContext(SpawningCause.make(inputs, context({}))), []],
  ] as const)("%s", (_, build, extra) => {
    expect(Object.keys(build()).sort()).toEqual([...RESOURCE_KEYS, ...extra].sort());
  });

  it("indices override same-named keys", () => {
    const ctx = HandlerCause.filterContext(
      ChangeCause.make(inputs, context({ name: "an index", reason: 42 })),
    );
    expect(ctx.name).toBe("an index");
    expect((ctx as unknown as Record<string, unknown>).reason).toBe(42);
  });
});
