/**
 * `kopf.indexOf`: the index's types come from its function's results (a Map, an object, or any
 * other value under the key null), and reading it from a context that lacks it is a clear error.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import * as kopf from "../src/index.ts";

const registry = kopf.Registry.make();

const byNode = kopf.indexOf(
  registry.on.index("pods", function by_node({ spec, name }) {
    return spec.nodeName === undefined ? null : { [String(spec.nodeName)]: String(name) };
  }),
);
const running = kopf.indexOf(
  registry.on.index("pods", function running({ namespace, name, status }) {
    return new Map([[[namespace, name] as const, status.phase === "Running"]]);
  }),
);
const phases = kopf.indexOf(
  registry.on.index("pods", { id: "phases" }, ({ status }) => String(status.phase)),
  { id: "phases" },
);

describe("kopf.indexOf", () => {
  it("types the index from what its function returns", () => {
    expectTypeOf(byNode).toEqualTypeOf<kopf.IndexRef<string, string>>();
    expectTypeOf(running).toEqualTypeOf<
      kopf.IndexRef<readonly [string | undefined, string | undefined], boolean>
    >();
    expectTypeOf(phases).toEqualTypeOf<kopf.IndexRef<null, string>>();
    expect([byNode.id, running.id, phases.id]).toEqual(["by_node", "running", "phases"]);
  });

  it("reads the index a context holds under the handler's id", () => {
    const context = { by_node: new Map([["node1", new Set(["pod1"])]]) };
    expect(byNode.in(context).get("node1")?.has("pod1")).toBe(true);
  });

  it("names the missing index", () => {
    expect(() => phases.in({ by_node: new Map() })).toThrow(/No index 'phases'/);
    expect(() => phases.in({ phases: 5 })).toThrow(kopf.IndexError);
  });
});
