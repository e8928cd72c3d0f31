// Scoped patch functions (src/internal/scopedFns.ts): which paths a list of functions changes,
// the copy that shares everything off those paths with the body, and that the finalizer
// functions, scoped, give the same JSON patch as the same functions unscoped (the whole body
// copied) without touching the reference.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MutableBody, RawBody } from "../../src/Body.ts";
import * as Finalizers from "../../src/Finalizers.ts";
import { copyAlong, scoped, scopeOf } from "../../src/internal/scopedFns.ts";
import * as PatchValue from "../../src/PatchValue.ts";

const noop = (_: MutableBody): void => undefined;

describe("scopeOf", () => {
  it("gives the paths of scoped functions, in order", () => {
    const a = scoped([["metadata", "finalizers"]], (_: MutableBody) => undefined);
    const b = scoped([["spec"], ["status", "x"]], (_: MutableBody) => undefined);
    expect(scopeOf([a, b])).toEqual([["metadata", "finalizers"], ["spec"], ["status", "x"]]);
    expect(scopeOf([])).toEqual([]);
  });
  it("gives nothing when any function is not scoped", () => {
    const a = scoped([["metadata", "finalizers"]], (_: MutableBody) => undefined);
    expect(scopeOf([a, noop])).toBeUndefined();
    expect(scopeOf([noop])).toBeUndefined();
  });
});

describe("copyAlong", () => {
  const body = {
    apiVersion: "v1",
    metadata: { name: "n", finalizers: ["a", "b"], annotations: { k: "v" } },
    spec: { nested: { deep: [1, 2] } },
    items: [{ x: { y: 1 } }, { x: { y: 2 } }],
  };

  it("copies the containers on the way and the value at the path, and shares the rest", () => {
    const copy = copyAlong(body, [["metadata", "finalizers"]]) as typeof body;
    expect(copy).toEqual(body);
    expect(copy).not.toBe(body);
    expect(copy.metadata).not.toBe(body.metadata);
    expect(copy.metadata.finalizers).not.toBe(body.metadata.finalizers);
    expect(copy.metadata.annotations).toBe(body.metadata.annotations);
    expect(copy.spec).toBe(body.spec);
    expect(copy.items).toBe(body.items);
  });

  it("copies the value at the path deeply, through lists too", () => {
    const copy = copyAlong(body, [["items", "1", "x"]]) as typeof body;
    expect(copy).toEqual(body);
    expect(copy.items).not.toBe(body.items);
    expect(copy.items[0]).toBe(body.items[0]);
    expect(copy.items[1]).not.toBe(body.items[1]);
    expect(copy.items[1]?.x).not.toBe(body.items[1]?.x);
    const spec = copyAlong(body, [["spec"]]) as typeof body;
    expect(spec.spec.nested.deep).not.toBe(body.spec.nested.deep);
    expect(spec.spec).toEqual(body.spec);
  });

  it("copies a container shared by two paths with both paths' values", () => {
    const copy = copyAlong(body, [
      ["metadata", "finalizers"],
      ["metadata", "annotations"],
    ]) as typeof body;
    expect(copy.metadata.finalizers).not.toBe(body.metadata.finalizers);
    expect(copy.metadata.annotations).not.toBe(body.metadata.annotations);
    expect(copy).toEqual(body);
  });

  it("stops where the way is missing or not a container", () => {
    const bare = { spec: { a: 1 } };
    const copy = copyAlong(bare, [["metadata", "finalizers"]]) as MutableBody;
    expect(copy).toEqual(bare);
    expect(copy.spec).toBe(bare.spec);
    const odd = { metadata: "text", spec: {} };
    expect(copyAlong(odd as unknown as RawBody, [["metadata", "finalizers"]])).toEqual(odd);
  });

  it("leaves the body as it was when the copy is changed along the path", () => {
    const before = structuredClone(body);
    const copy = copyAlong(body, [["metadata", "finalizers"]]) as typeof body;
    copy.metadata.finalizers.push("c");
    delete (copy as Partial<typeof body>).apiVersion;
    copy.metadata.name = "changed";
    expect(body).toEqual(before);
  });
});

describe("the finalizer functions as a JSON patch", () => {
  const FIN = Finalizers.DEFAULT_FINALIZER;
  const metadata = fc.record(
    {
      name: fc.constant("obj"),
      resourceVersion: fc.constant("7"),
      finalizers: fc.array(fc.constantFrom("a", FIN, "b/c", "~x"), { maxLength: 4 }),
      annotations: fc.dictionary(fc.constantFrom("k", "l/m"), fc.string({ maxLength: 3 })),
      labels: fc.constant({}),
    },
    { requiredKeys: ["name", "resourceVersion"] },
  );
  const body = fc.record(
    {
      apiVersion: fc.constant("kopf.dev/v1"),
      metadata: fc.oneof(metadata, fc.constant("not an object")),
      spec: fc.jsonValue(),
      status: fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 2 })),
    },
    { requiredKeys: ["apiVersion"] },
  );
  const mergePatch = fc.oneof(
    fc.constant({}),
    fc.constant({ metadata: { annotations: { k: null, n: "1" } } }),
    fc.constant({ metadata: { finalizers: ["z"] } }),
    fc.constant({ metadata: null }),
    fc.constant({ spec: { added: true }, status: null }),
  );

  it.each([
    ["blockDeletion", Finalizers.blockDeletion],
    ["allowDeletion", Finalizers.allowDeletion],
  ] as const)("%s: the same operations as with the whole body copied, and the body untouched", (_, make) => {
    fc.assert(
      fc.property(body, mergePatch, fc.constantFrom(FIN, "a"), (generated, merge, finalizer) => {
        // A copy of its own: a run that changes it leaves the generated value to the next runs.
        const reference = structuredClone(generated);
        const fn = make(finalizer);
        const unscoped = (b: MutableBody) => fn(b);
        const before = structuredClone(reference);
        const fast = PatchValue.asJsonPatch(PatchValue.make(merge, [fn]), reference as RawBody);
        const whole = PatchValue.asJsonPatch(PatchValue.make(merge, [unscoped]), reference as RawBody);
        expect(fast).toEqual(whole);
        expect(reference).toEqual(before);
      }),
    );
  });

  it("sees the containers it changes without keys holding undefined, as the whole copy does", () => {
    // Left with only an undefined key, metadata is empty and goes, as with the whole body copied.
    const reference = {
      metadata: { finalizers: [FIN], labels: undefined },
      spec: { a: undefined },
    } as unknown as RawBody;
    const remove = Finalizers.allowDeletion(FIN);
    const fast = PatchValue.asJsonPatch(PatchValue.make({}, [remove]), reference);
    expect(fast).toEqual(
      PatchValue.asJsonPatch(PatchValue.make({}, [(b: MutableBody) => remove(b)]), reference),
    );
    expect(JSON.stringify(fast)).toContain('"path":"/metadata"');
  });

  it("falls back to the whole copy when an unscoped function comes along", () => {
    const reference = { metadata: { name: "o", finalizers: [FIN] }, spec: { a: 1 } };
    const touchSpec = (b: MutableBody) => {
      (b.spec as { a: number }).a = 2;
    };
    const ops = PatchValue.asJsonPatch(
      PatchValue.make({}, [Finalizers.allowDeletion(FIN), touchSpec]),
      reference as RawBody,
    );
    expect(ops).toEqual(
      PatchValue.asJsonPatch(
        PatchValue.make({}, [(b: MutableBody) => Finalizers.allowDeletion(FIN)(b), touchSpec]),
        reference as RawBody,
      ),
    );
    expect(reference.spec.a).toBe(1);
    expect(JSON.stringify(ops)).toContain('"/spec/a"');
  });
});
