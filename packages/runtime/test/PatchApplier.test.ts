// Covers the four-step patch application (docs/behaviour/processing.md#patching) against the in-process emulator:
// which calls are made, in which order, with which content types and `test` guards; 422 and
// 404 outcomes; other errors escalate; and the inconsistency warning (docs/behaviour/processing.md#patching) after merging.
import { assert, describe, it } from "@effect/vitest";
import { KubeApi, KubeApiError } from "@kopf/client";
import { FaultInjector } from "@kopf/emulator";
import { Finalizers, Patch, type RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as fc from "fast-check";
import * as PatchApplier from "../src/PatchApplier.ts";
import * as Cluster from "./fixtures/Cluster.ts";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";

const run = <A, E>(
  effect: Effect.Effect<A, E, KubeApi | FaultInjector>,
  options: { status?: boolean; log?: Cluster.RequestLog; lines?: Array<string> } = {},
) => {
  const log = options.log ?? new Cluster.RequestLog();
  const lines = options.lines ?? [];
  const capture = Logger.layer([
    Logger.make((o) => lines.push(`${o.logLevel} ${(o.message as ReadonlyArray<unknown>).join(" ")}`)),
  ]);
  return Effect.gen(function* () {
    yield* Cluster.setup({ status: options.status });
    return yield* effect;
  }).pipe(Effect.provide(Layer.merge(Cluster.layer(log), capture)));
};

const created = (status?: boolean) =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    return yield* api.create(Cluster.resource({ status }), Cluster.example("e1") as RawBody, {
      namespace: "ns1",
    });
  });

const rv = (body: RawBody | undefined) => body?.metadata?.resourceVersion;

/** The outcome, asserted to be of the given kind. */
const expect = <T extends PatchApplier.Outcome["_tag"]>(
  outcome: PatchApplier.Outcome,
  tag: T,
): Extract<PatchApplier.Outcome, { _tag: T }> => {
  assert.strictEqual(outcome._tag, tag);
  return outcome as Extract<PatchApplier.Outcome, { _tag: T }>;
};
const summary = (log: Cluster.RequestLog) =>
  log.patches().map((r) => `${r.path.endsWith("/status") ? "status" : "object"} ${r.contentType}`);

/** A patch that takes all four steps: merge patches of the status and the object, a finalizer, a function changing status. */
const allFourSteps = (body: RawBody) => {
  const patch = Patch.make(body);
  patch.spec.x = 1;
  patch.status.s = 1;
  patch.fns.push(Finalizers.blockDeletion("fin"));
  patch.fns.push((b) => {
    (b as { status: Record<string, unknown> }).status.fromFn = true;
  });
  return patch;
};

describe("PatchApplier.apply", () => {
  it.effect("makes no call for an empty patch or for functions that change nothing", () => {
    const log = new Cluster.RequestLog();
    return run(
      Effect.gen(function* () {
        const body = yield* created();
        log.clear();
        const empty = yield* PatchApplier.apply({
          resource: Cluster.resource(),
          body,
          patch: Patch.make(body),
        });
        const noop = Patch.make(body);
        noop.fns.push(() => {});
        const idle = expect(
          yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch: noop }),
          "Applied",
        );
        assert.strictEqual(empty.calls, 0);
        assert.strictEqual(idle.calls, 0);
        assert.strictEqual(idle.resourceVersion, undefined);
        assert.deepStrictEqual(log.patches(), []);
      }),
      { log },
    );
  });

  it.effect("merge-patches the status subresource first, then the object without status", () => {
    const log = new Cluster.RequestLog();
    return run(
      Effect.gen(function* () {
        const body = yield* created();
        log.clear();
        const patch = Patch.make(body);
        patch.spec.x = 1;
        patch.status.phase = "Ready";
        const applied = expect(
          yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch }),
          "Applied",
        );
        assert.deepStrictEqual(summary(log), [`status ${MERGE}`, `object ${MERGE}`]);
        assert.deepStrictEqual(log.patches()[0]?.body, { status: { phase: "Ready" } });
        assert.deepStrictEqual(log.patches()[1]?.body, { spec: { x: 1 } });
        assert.deepStrictEqual(applied.body?.status, { phase: "Ready" });
        assert.strictEqual(applied.resourceVersion, rv(applied.body));
      }),
      { log },
    );
  });

  it.effect("reads only the answers it uses: not the status write's when the object write follows", () => {
    // The client's calls, by which of its operations made them: `patchUnread` leaves the answer undecoded.
    const calls: Array<string> = [];
    const recorded = (api: KubeApi["Service"]): KubeApi["Service"] => ({
      ...api,
      patch: (resource, location, spec, options) => {
        calls.push(`read ${location.subresource ?? "object"} ${spec.type}`);
        return api.patch(resource, location, spec, options);
      },
      patchUnread: (resource, location, spec, options) => {
        calls.push(`unread ${location.subresource ?? "object"} ${spec.type}`);
        return api.patchUnread(resource, location, spec, options);
      },
    });
    return run(
      Effect.gen(function* () {
        const body = yield* created();
        const apply = (patch: Patch.Patch) =>
          PatchApplier.apply({ resource: Cluster.resource(), body, patch }).pipe(
            Effect.updateService(KubeApi, recorded),
          );
        const both = Patch.make(body);
        both.status.phase = "Ready";
        both.meta.labels.l = "v";
        const applied = expect(yield* apply(both), "Applied");
        assert.deepStrictEqual(calls.splice(0), ["unread status merge", "read object merge"]);
        // The object's answer holds the status the first write stored: the outcome is the freshest.
        assert.deepStrictEqual(applied.body?.status, { phase: "Ready" });
        assert.strictEqual(applied.body?.metadata?.labels?.l, "v");
        assert.strictEqual(applied.resourceVersion, rv(applied.body));

        const statusOnly = Patch.make(body);
        statusOnly.status.phase = "Done";
        const alone = expect(yield* apply(statusOnly), "Applied");
        assert.deepStrictEqual(calls.splice(0), ["read status merge"]);
        assert.deepStrictEqual(alone.body?.status, { phase: "Done" });

        // A JSON patch is guarded by the answer before it: each of those is read.
        expect(yield* apply(allFourSteps(alone.body as RawBody)), "Applied");
        assert.deepStrictEqual(calls.splice(0), [
          "unread status merge",
          "read object merge",
          "read object json",
          "read status json",
        ]);
      }),
    );
  });

  it.effect("status alone goes to /status only; object alone to the object only", () => {
    const log = new Cluster.RequestLog();
    return run(
      Effect.gen(function* () {
        const body = yield* created();
        log.clear();
        const statusOnly = Patch.make(body);
        statusOnly.status.a = 1;
        yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch: statusOnly });
        assert.deepStrictEqual(summary(log), [`status ${MERGE}`]);
        log.clear();
        const objectOnly = Patch.make(body);
        objectOnly.meta.labels.l = "v";
        yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch: objectOnly });
        assert.deepStrictEqual(summary(log), [`object ${MERGE}`]);
      }),
      { log },
    );
  });

  it.effect("JSON-patches finalizers with a resourceVersion test, after the merge response's version", () => {
    const log = new Cluster.RequestLog();
    return run(
      Effect.gen(function* () {
        const body = yield* created();
        log.clear();
        const patch = Patch.make(body);
        patch.fns.push(Finalizers.blockDeletion("fin"));
        yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch });
        assert.deepStrictEqual(log.patches()[0]?.body, [
          { op: "test", path: "/metadata/resourceVersion", value: rv(body) },
          { op: "add", path: "/metadata/finalizers", value: ["fin"] },
        ]);

        const fresh = (yield* (yield* KubeApi).get(Cluster.resource(), {
          namespace: "ns1",
          name: "e1",
        })) as RawBody;
        log.clear();
        const both = Patch.make(fresh);
        both.spec.y = 2;
        both.fns.push(Finalizers.allowDeletion("fin"));
        const applied = expect(
          yield* PatchApplier.apply({ resource: Cluster.resource(), body: fresh, patch: both }),
          "Applied",
        );
        const merged = log.patches()[0];
        const guarded = log.patches()[1]?.body as ReadonlyArray<{ op: string; value?: unknown }>;
        assert.strictEqual(merged?.contentType, MERGE);
        assert.strictEqual(log.patches()[1]?.contentType, JSON_PATCH);
        assert.notStrictEqual(guarded[0]?.value, rv(fresh));
        assert.isTrue(Number(guarded[0]?.value) > Number(rv(fresh)));
        assert.deepStrictEqual(applied.body?.metadata?.finalizers, undefined);
      }),
      { log },
    );
  });

  it.effect(
    "all four steps in order; the status JSON patch is guarded by the object JSON patch's version",
    () => {
      const log = new Cluster.RequestLog();
      return run(
        Effect.gen(function* () {
          const body = yield* created();
          log.clear();
          const patch = allFourSteps(body);
          const applied = expect(
            yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch }),
            "Applied",
          );
          assert.deepStrictEqual(summary(log), [
            `status ${MERGE}`,
            `object ${MERGE}`,
            `object ${JSON_PATCH}`,
            `status ${JSON_PATCH}`,
          ]);
          const third = log.patches()[2]?.body as ReadonlyArray<{ path: string; value?: unknown }>;
          const fourth = log.patches()[3]?.body as ReadonlyArray<{ path: string; value?: unknown }>;
          assert.deepStrictEqual(
            third.map((op) => op.path),
            ["/metadata/resourceVersion", "/metadata/finalizers"],
          );
          assert.deepStrictEqual(
            fourth.map((op) => op.path),
            ["/metadata/resourceVersion", "/status/fromFn"],
          );
          assert.isTrue(Number(fourth[0]?.value) > Number(third[0]?.value));
          assert.strictEqual(applied.calls, 4);
          assert.deepStrictEqual(applied.body?.status, { s: 1, fromFn: true });
          assert.deepStrictEqual(applied.body?.metadata?.finalizers, ["fin"]);
        }),
        { log },
      );
    },
  );

  it.effect("without a status subresource, everything goes to the object (status ops mixed in)", () => {
    const log = new Cluster.RequestLog();
    return run(
      Effect.gen(function* () {
        const body = yield* created(false);
        log.clear();
        const patch = Patch.make(body);
        patch.status.s = 1;
        patch.fns.push(Finalizers.blockDeletion("fin"));
        patch.fns.push((b) => {
          (b as { status: Record<string, unknown> }).status.fromFn = true;
        });
        yield* PatchApplier.apply({ resource: Cluster.resource({ status: false }), body, patch });
        assert.deepStrictEqual(summary(log), [`object ${MERGE}`, `object ${JSON_PATCH}`]);
        assert.deepStrictEqual(log.patches()[0]?.body, { status: { s: 1 } });
        const ops = log.patches()[1]?.body as ReadonlyArray<{ path: string }>;
        assert.deepStrictEqual(ops.map((op) => op.path).sort(), [
          "/metadata/finalizers",
          "/metadata/resourceVersion",
          "/status/fromFn",
        ]);
      }),
      { log, status: false },
    );
  });

  it.effect(
    "a 422 from an object changed since its version was tested is a conflict: the functions are pending",
    () => {
      const log = new Cluster.RequestLog();
      return run(
        Effect.gen(function* () {
          const stale = yield* created();
          const api = yield* KubeApi;
          yield* api.patch(
            Cluster.resource(),
            { namespace: "ns1", name: "e1" },
            { type: "merge", body: { metadata: { labels: { changed: "yes" } } } },
          );
          log.clear();
          const patch = Patch.make(stale);
          const fin = Finalizers.blockDeletion("fin");
          const statusFn = (b: { status?: Record<string, unknown> }) => {
            b.status = { ...(b.status ?? {}), fromFn: true };
          };
          patch.fns.push(fin, statusFn as never);
          const conflict = expect(
            yield* PatchApplier.apply({ resource: Cluster.resource(), body: stale, patch }),
            "Conflict",
          );
          assert.deepStrictEqual(summary(log), [`object ${JSON_PATCH}`]);
          assert.strictEqual(conflict.calls, 1);
          assert.deepStrictEqual(conflict.pending.toMergePatch(), {});
          assert.strictEqual(conflict.pending.original, undefined);
          assert.deepStrictEqual(conflict.pending.fns, [fin, statusFn]);
          assert.strictEqual(conflict.resourceVersion, undefined);
        }),
        { log },
      );
    },
  );

  it.effect.each([
    ["object", 2],
    ["status", 3],
  ] as const)(
    "a 422 on the %s JSON patch of an unchanged object is invalid: nothing pending, the rejection returned",
    ([, failing]) => {
      const log = new Cluster.RequestLog();
      return run(
        Effect.gen(function* () {
          const body = yield* created();
          log.clear();
          log.failPatch = (index) => (index === failing - 1 ? 422 : undefined);
          const patch = Patch.make(body);
          patch.spec.x = 1;
          const statusFn = (b: { status?: Record<string, unknown> }) => {
            b.status = { ...(b.status ?? {}), fromFn: true };
          };
          patch.fns.push(Finalizers.blockDeletion("fin"), statusFn as never);
          const invalid = expect(
            yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch }),
            "Invalid",
          );
          assert.strictEqual(log.patches().length, failing);
          assert.strictEqual(invalid.calls, failing);
          assert.strictEqual(invalid.write.type, "json");
          assert.strictEqual(invalid.write.part, failing === 2 ? "object" : "status");
          assert.strictEqual(invalid.error.reason, "Invalid");
          assert.isDefined(invalid.resourceVersion);
        }),
        { log },
      );
    },
  );

  it.effect.each([1, 2, 3, 4])(
    "a 404 at step %d means the object is gone, after exactly that many calls",
    (step) => {
      const log = new Cluster.RequestLog();
      return run(
        Effect.gen(function* () {
          const body = yield* created();
          log.clear();
          log.failPatch = (index) => (index === step - 1 ? 404 : undefined);
          const patch = allFourSteps(body);
          const gone = expect(
            yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch }),
            "Gone",
          );
          assert.strictEqual(gone.calls, step);
          assert.strictEqual(log.patches().length, step);
        }),
        { log },
      );
    },
  );

  it.effect.each([500, 503, 422])(
    "a failed status write (HTTP %d) stores no mark: the object is not patched, the error says so",
    (status) => {
      const log = new Cluster.RequestLog();
      return run(
        Effect.gen(function* () {
          const body = yield* created();
          log.clear();
          log.failPatch = (_, request) => (request.path.endsWith("/status") ? status : undefined);
          const patch = Patch.make(body);
          patch.status.createFn = { message: "result" };
          patch.meta.annotations["kopf.zalando.org/last-handled-configuration"] = "{}";
          const error = yield* Effect.flip(PatchApplier.apply({ resource: Cluster.resource(), body, patch }));
          assert.instanceOf(error, PatchApplier.PatchNotStored);
          assert.strictEqual((error as PatchApplier.PatchNotStored).part, "status");
          assert.instanceOf((error as PatchApplier.PatchNotStored).cause, KubeApiError);
          assert.deepStrictEqual(summary(log), [`status ${MERGE}`]);
          const stored = yield* (yield* KubeApi).get(Cluster.resource(), { namespace: "ns1", name: "e1" });
          assert.deepStrictEqual(stored.metadata?.annotations, undefined);
          assert.include(error.message, "Storing the status failed");
          assert.include(error.message, "the handlers stay pending and will run again");
        }),
        { log },
      );
    },
  );

  it.effect.each([400, 403, 500])(
    "HTTP %d on the object fails as PatchNotStored carrying the KubeApiError",
    (status) =>
      run(
        Effect.gen(function* () {
          const body = yield* created();
          const faults = yield* FaultInjector;
          yield* faults.injectFailure({ verb: "patch", status, times: 1 }).pipe(Effect.orDie);
          const patch = Patch.make(body);
          patch.spec.x = 1;
          const error = yield* Effect.flip(PatchApplier.apply({ resource: Cluster.resource(), body, patch }));
          assert.instanceOf(error, PatchApplier.PatchNotStored);
          assert.strictEqual((error as PatchApplier.PatchNotStored).part, "object");
          assert.instanceOf((error as PatchApplier.PatchNotStored).cause, KubeApiError);
        }),
      ),
  );

  it.effect("marks the version of a released object as never arriving", () =>
    run(
      Effect.gen(function* () {
        const api = yield* KubeApi;
        yield* created();
        const held = Patch.make();
        held.meta.finalizers = ["fin"];
        yield* api.patch(
          Cluster.resource(),
          { namespace: "ns1", name: "e1" },
          { type: "merge", body: held.toMergePatch() },
        );
        yield* api.delete(Cluster.resource(), { namespace: "ns1", name: "e1" });
        const deleting = (yield* api.get(Cluster.resource(), { namespace: "ns1", name: "e1" })) as RawBody;
        const patch = Patch.make(deleting);
        patch.fns.push(Finalizers.allowDeletion("fin"));
        const outcome = yield* PatchApplier.apply({ resource: Cluster.resource(), body: deleting, patch });
        assert.isTrue(
          outcome._tag === "Gone" ||
            (outcome._tag === "Applied" &&
              outcome.resourceVersion?.endsWith(PatchApplier.NEVER_ARRIVES) === true),
        );
      }),
    ),
  );

  it.effect.each([
    ["echoes the patch", (b: Record<string, unknown>) => b, 0],
    ["drops a nulled field", (b: Record<string, unknown>) => b, 0],
    ["loses the spec", ({ spec: _, ...rest }: Record<string, unknown>) => rest, 1],
    ["alters a value", (b: Record<string, unknown>) => ({ ...b, spec: { ...(b.spec as object), x: 2 } }), 1],
    ["is empty", () => ({}), 1],
  ] as const)(
    "merge-patching warns about inconsistencies only when the response %s",
    ([, rewrite, count]) => {
      const lines: Array<string> = [];
      const log = new Cluster.RequestLog();
      return run(
        Effect.gen(function* () {
          const body = yield* created();
          log.rewritePatchResponse = rewrite;
          const patch = Patch.make(body);
          patch.spec.x = 1;
          patch.spec.field = null;
          patch.meta.annotations = {};
          yield* PatchApplier.apply({ resource: Cluster.resource(), body, patch });
          const warnings = lines.filter((l) => l.startsWith("Warn"));
          assert.strictEqual(warnings.length, count);
          if (count > 0) assert.include(warnings[0], "Merge-patching finished with inconsistencies:");
        }),
        { lines, log },
      );
    },
  );
});

describe("PatchApplier.mergeRequests", () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
  const results = fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 3 });
  const marks = fc.dictionary(
    key.map((k) => `kopf.zalando.org/${k}`),
    fc.string(),
    { maxKeys: 3 },
  );

  it("property: results before marks — with a status subresource, status goes first and alone", () => {
    fc.assert(
      fc.property(results, marks, fc.boolean(), (status, annotations, subresource) => {
        const patch = Patch.make({ metadata: { name: "e1" } } as RawBody);
        Object.assign(patch.status, status);
        Object.assign(patch.meta.annotations, annotations);
        const writes = PatchApplier.mergeRequests(Cluster.resource({ status: subresource }), patch);
        const hasResults = Object.keys(status).length > 0;
        const hasMarks = Object.keys(annotations).length > 0;
        const parts = writes.map((w) => w.part);
        if (!subresource) {
          // One merge patch carries both: nothing can be stored without the other.
          assert.deepStrictEqual(parts, hasResults || hasMarks ? ["object"] : []);
          return;
        }
        assert.deepStrictEqual(parts, [...(hasResults ? ["status"] : []), ...(hasMarks ? ["object"] : [])]);
        for (const write of writes) {
          const payload = write.payload as Readonly<Record<string, unknown>>;
          assert.strictEqual("status" in payload, write.part === "status");
          assert.strictEqual("metadata" in payload, write.part === "object");
        }
      }),
    );
  });
});
