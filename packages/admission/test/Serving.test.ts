/**
 * Serving admission requests (docs/behaviour/admission.md#requests): resource lookup, handler selection (reason
 * hint, webhook id, DELETE vs mutating, the subresource matrix, filters), the kwargs handlers
 * get, ephemeral memos on CREATE, and the response (patch, warnings, errors).
 */
import { assert, describe, it } from "@effect/vitest";
import { AdmissionError, PermanentError, Registry } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import { Review, Serving } from "../src/index.ts";
import { RESOURCE, review, SPEC } from "./fixtures/reviews.ts";

const decoded = (request: Record<string, unknown> = {}) => {
  const result = Review.decode(review(request));
  if (Result.isFailure(result)) throw new Error(result.failure.message);
  return result.success;
};

const serve = (
  registry: Registry.Registry<any>,
  call: Partial<Serving.Call> & { request?: Record<string, unknown> },
  memo = {},
) =>
  Serving.serve({ registry, resources: () => [RESOURCE], memo }, { review: decoded(call.request), ...call });

const patchOps = (patch: string | undefined) =>
  JSON.parse(Buffer.from(patch ?? "", "base64").toString("utf8"));

describe("Serving", () => {
  it.effect("unknown and ambiguous resources are errors", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      const unknown = yield* Effect.flip(
        Serving.serve({ registry, resources: () => [], memo: {} }, { review: decoded() }),
      );
      assert.strictEqual(unknown.reason, "UnknownResource");
      const twin = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", kind: "Other" });
      const ambiguous = yield* Effect.flip(
        Serving.serve({ registry, resources: () => [RESOURCE, twin], memo: {} }, { review: decoded() }),
      );
      assert.strictEqual(ambiguous.reason, "AmbiguousResource");
    }),
  );

  it.effect("no handlers ⇒ allowed, no warnings, patch or status; uid echoed", () =>
    Effect.gen(function* () {
      const doc = yield* serve(Registry.make(), {});
      assert.deepStrictEqual(doc, {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: "uid1", allowed: true },
      });
    }),
  );

  it.effect("a rejecting handler denies with its message and code; warnings are returned", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "check" }, ({ warnings }: { warnings: string[] }) => {
        warnings.push("be careful");
        throw new AdmissionError("No!", { code: 403 });
      });
      const doc = yield* serve(registry, {});
      assert.deepStrictEqual(doc.response, {
        uid: "uid1",
        allowed: false,
        warnings: ["be careful"],
        status: { message: "No!", code: 403 },
      });
    }),
  );

  it.effect("the patch becomes base64 JSON patch ops against the request body", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.mutate(SPEC, { id: "mutate" }, ({ patch }: any) => {
        patch.xyz = "added";
        patch.spec.field = "replaced";
      });
      const doc = yield* serve(registry, {});
      assert.isTrue(doc.response.allowed);
      assert.strictEqual(doc.response.patchType, "JSONPatch");
      assert.deepStrictEqual(patchOps(doc.response.patch), [
        { op: "add", path: "/xyz", value: "added" },
        { op: "replace", path: "/spec/field", value: "replaced" },
      ]);
    }),
  );

  it.effect("async handlers are awaited; all handlers run even when one fails", () =>
    Effect.gen(function* () {
      const calls: string[] = [];
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "a" }, () => {
        calls.push("a");
        throw new Error("boom");
      });
      registry.on.validate(SPEC, { id: "b" }, async () => {
        await new Promise((r) => setTimeout(r, 1));
        calls.push("b");
        throw new AdmissionError("denied by b", { code: 400 });
      });
      const doc = yield* serve(registry, {});
      assert.deepStrictEqual(calls, ["a", "b"]);
      assert.deepStrictEqual(doc.response.status, { message: "denied by b", code: 400 });
    }),
  );

  const selection = () => {
    const calls: string[] = [];
    const registry = Registry.make();
    const fn = (id: string) => () => void calls.push(id);
    registry.on.validate(SPEC, { id: "v" }, fn("v"));
    registry.on.mutate(SPEC, { id: "m" }, fn("m"));
    registry.on.mutate(SPEC, { id: "md", operations: ["DELETE"] }, fn("md"));
    return { calls, registry };
  };

  it.effect.each([
    ["no hints", {}, "CREATE", ["v", "m", "md"]],
    ["reason validating", { reason: "validating" as const }, "CREATE", ["v"]],
    ["reason mutating", { reason: "mutating" as const }, "CREATE", ["m", "md"]],
    ["webhook id", { webhook: "m" }, "CREATE", ["m"]],
    ["reason and id", { reason: "validating" as const, webhook: "m" }, "CREATE", []],
    ["root path (empty id)", { webhook: "" }, "CREATE", []],
    ["DELETE: mutating only if exactly DELETE", {}, "DELETE", ["v", "md"]],
  ] as const)("selection: %s", ([_name, hints, operation, expected]) =>
    Effect.gen(function* () {
      const { calls, registry } = selection();
      const doc = yield* serve(registry, { ...hints, request: { operation, oldObject: { spec: {} } } });
      assert.deepStrictEqual(calls, [...expected]);
      assert.isTrue(doc.response.allowed);
    }),
  );

  it.effect.each([
    ["*", "no", true],
    ["*", "sb", true],
    ["*", undefined, true],
    ["sb", "sb", true],
    ["sb", "no", false],
    ["sb", undefined, false],
    [undefined, undefined, true],
    [undefined, "no", false],
    [undefined, "sb", false],
  ] as const)("subresource matrix: handler %s × request %s ⇒ called %s", ([handlerSub, requestSub, called]) =>
    Effect.gen(function* () {
      const calls: string[] = [];
      const registry = Registry.make();
      registry.on.validate(
        SPEC,
        handlerSub === undefined ? { id: "x" } : { id: "x", subresource: handlerSub },
        () => void calls.push("x"),
      );
      yield* serve(registry, { request: requestSub === undefined ? {} : { subResource: requestSub } });
      assert.strictEqual(calls.length, called ? 1 : 0);
    }),
  );

  it.effect("filters: labels select the handlers", () =>
    Effect.gen(function* () {
      const calls: string[] = [];
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "l", labels: { app: "yes" } }, () => void calls.push("l"));
      yield* serve(registry, {});
      assert.deepStrictEqual(calls, []);
      yield* serve(registry, {
        request: { object: { metadata: { name: "n", labels: { app: "yes" } } } },
      });
      assert.deepStrictEqual(calls, ["l"]);
    }),
  );

  it.effect("handlers get Kopf's admission kwargs", () =>
    Effect.gen(function* () {
      let seen: any;
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "k", param: 7 }, (ctx: any) => {
        seen = { ...ctx };
      });
      const oldObject = { metadata: { name: "name1" }, spec: { field: "old" } };
      yield* serve(registry, {
        headers: { "x-h": "v" },
        sslpeer: { subject: [] },
        request: { operation: "UPDATE", oldObject, dryRun: true, subResource: undefined },
      });
      assert.strictEqual(seen.operation, "UPDATE");
      assert.isTrue(seen.dryrun);
      assert.deepStrictEqual(seen.headers, { "x-h": "v" });
      assert.deepStrictEqual(seen.sslpeer, { subject: [] });
      assert.deepStrictEqual(seen.userinfo, { username: "user1", groups: ["group1"] });
      assert.strictEqual(seen.subresource, undefined);
      assert.deepStrictEqual(seen.old, oldObject);
      assert.deepStrictEqual(seen.new.spec, { field: "value" });
      assert.deepStrictEqual(seen.spec, { field: "value" });
      assert.strictEqual(seen.name, "name1");
      assert.strictEqual(seen.namespace, "ns1");
      assert.strictEqual(seen.retry, 0);
      assert.strictEqual(seen.param, 7);
      assert.isTrue(Array.isArray(seen.warnings));
      assert.isTrue(seen.diff.some((d: any) => d.op === "change" && d.field.join(".") === "spec.field"));
      assert.deepStrictEqual(seen.resource, RESOURCE);
    }),
  );

  it.effect("memo: CREATE gets a throw-away copy of the operator's memo", () =>
    Effect.gen(function* () {
      const memo: Record<string, unknown> = { shared: 1 };
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "m" }, ({ memo }: any) => {
        assert.strictEqual(memo.shared, 1);
        memo.touched = true;
      });
      yield* serve(registry, {}, memo);
      assert.deepStrictEqual(memo, { shared: 1 });
    }),
  );

  it.effect("memo: other operations use the object's memo when the runtime shares it", () =>
    Effect.gen(function* () {
      const objectMemo: Record<string, unknown> = {};
      const registry = Registry.make();
      registry.on.validate(SPEC, { id: "m" }, ({ memo }: any) => {
        memo.count = ((memo.count as number) ?? 0) + 1;
      });
      const options = { registry, resources: () => [RESOURCE], memo: {}, memoOf: () => objectMemo };
      yield* Serving.serve(options, { review: decoded({ operation: "UPDATE" }) });
      yield* Serving.serve(options, { review: decoded({ operation: "UPDATE" }) });
      yield* Serving.serve(options, { review: decoded({ operation: "CREATE" }) });
      assert.deepStrictEqual(objectMemo, { count: 2 });
    }),
  );

  it("property: allowed iff no handler fails; the reported error is the first of the best rank; warnings and patches add up", async () => {
    type Behaviour = {
      readonly kind: "ok" | "admission" | "permanent" | "error";
      readonly warn: boolean;
      readonly patch: boolean;
    };
    const behaviour = fc.record({
      kind: fc.constantFrom("ok", "admission", "permanent", "error") as fc.Arbitrary<Behaviour["kind"]>,
      warn: fc.boolean(),
      patch: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(behaviour, { maxLength: 5 }), async (behaviours) => {
        const registry = Registry.make();
        behaviours.forEach((b, i) => {
          registry.on.validate(SPEC, { id: `h${i}` }, ({ warnings, patch }: any) => {
            if (b.warn) warnings.push(`w${i}`);
            if (b.patch) patch.spec[`f${i}`] = i;
            if (b.kind === "admission") throw new AdmissionError(`a${i}`, { code: 400 + i });
            if (b.kind === "permanent") throw new PermanentError(`p${i}`);
            if (b.kind === "error") throw new Error(`e${i}`);
          });
        });
        const doc = await Effect.runPromise(serve(registry, {}));
        const failing = behaviours.map((b, i) => [b, i] as const).filter(([b]) => b.kind !== "ok");
        const rank = { admission: 0, permanent: 1, error: 3, ok: 9 } as const;
        const best = failing.reduce<readonly [Behaviour, number] | undefined>(
          (acc, cur) => (acc === undefined || rank[cur[0].kind] < rank[acc[0].kind] ? cur : acc),
          undefined,
        );
        const warnings = behaviours.flatMap((b, i) => (b.warn ? [`w${i}`] : []));
        const patched = behaviours.filter((b) => b.patch).length;
        const ops = doc.response.patch === undefined ? [] : patchOps(doc.response.patch);
        return (
          doc.response.uid === "uid1" &&
          doc.response.allowed === (failing.length === 0) &&
          JSON.stringify(doc.response.warnings ?? []) === JSON.stringify(warnings) &&
          ops.length === patched &&
          (best === undefined
            ? doc.response.status === undefined
            : doc.response.status?.message === `${best[0].kind[0]}${best[1]}` &&
              doc.response.status.code === (best[0].kind === "admission" ? 400 + best[1] : 500))
        );
      }),
      { numRuns: 60 },
    );
  });
});
