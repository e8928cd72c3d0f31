// Evidence with kubernetes-fluent-client over HTTPS, configured only by the kubeconfig the
// emulator writes: Get (one and list), Create, Apply (server-side, forced), Patch (JSON patch),
// PatchStatus, Delete, Watch (list-then-watch, then live events), and its error objects.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { K8s, kind } from "kubernetes-fluent-client";
import { CRD } from "../api/Harness.ts";
import { eventually, startEmulator } from "../kubectl/support.ts";

const gvk = { group: "kopf.dev", version: "v1", kind: "KopfExample", plural: "kopfexamples" };
const Example = (filters: { namespace?: string; name?: string } = {}) =>
  K8s(kind.GenericKind, { kindOverride: gvk, ...filters });

const crd = CRD;

const withKfc = <A, E>(body: () => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const running = yield* startEmulator();
      const previous = process.env.KUBECONFIG;
      process.env.KUBECONFIG = running.kubeconfig;
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (previous === undefined) delete process.env.KUBECONFIG;
          else process.env.KUBECONFIG = previous;
        }),
      );
      yield* running.emulator.apply([crd]);
      return yield* body();
    }),
  );

const promise = <A>(f: () => Promise<A>) => Effect.promise(f);

describe("kubernetes-fluent-client against the emulator", () => {
  it.live("creates, gets, lists, patches, applies, patches status and deletes", () =>
    withKfc(() =>
      Effect.gen(function* () {
        const created = yield* promise(() =>
          Example().Create({
            apiVersion: "kopf.dev/v1",
            kind: "KopfExample",
            metadata: { name: "a", namespace: "default" },
            spec: { x: 1 },
          }),
        );
        assert.strictEqual(created.metadata?.name, "a");
        assert.match(created.metadata?.uid ?? "", /^[0-9a-f-]{36}$/);

        const got = yield* promise(() => Example({ namespace: "default" }).Get("a"));
        assert.deepStrictEqual(got.spec, { x: 1 });
        const list = yield* promise(() => Example({ namespace: "default" }).Get());
        assert.deepStrictEqual(
          list.items.map((item) => item.metadata?.name),
          ["a"],
        );

        const patched = yield* promise(() =>
          Example({ namespace: "default", name: "a" }).Patch([{ op: "replace", path: "/spec/x", value: 2 }]),
        );
        assert.strictEqual(patched.spec.x, 2);

        const applied = yield* promise(() =>
          Example().Apply(
            {
              apiVersion: "kopf.dev/v1",
              kind: "KopfExample",
              metadata: { name: "b", namespace: "default" },
              spec: { y: "z" },
            },
            { force: true },
          ),
        );
        assert.strictEqual(applied.metadata?.managedFields?.[0]?.manager, "pepr");

        const status = yield* promise(() =>
          Example().PatchStatus({ metadata: { name: "a", namespace: "default" }, status: { phase: "Done" } }),
        );
        assert.deepStrictEqual(status.status, { phase: "Done" });
        assert.strictEqual(status.spec.x, 2);

        yield* promise(() => Example({ namespace: "default" }).Delete("a"));
        const failure = yield* Effect.flip(
          Effect.tryPromise(() => Example({ namespace: "default" }).Get("a")),
        );
        const error = failure.cause as { status: number; data: { reason: string; code: number } };
        assert.strictEqual(error.status, 404);
        assert.strictEqual(error.data.reason, "NotFound");
        yield* promise(() => Example({ namespace: "default" }).Delete("a")); // KFC swallows the 404
      }),
    ),
  );

  it.live("watches: initial list as ADDED, then live ADDED/MODIFIED/DELETED", () =>
    withKfc(() =>
      Effect.gen(function* () {
        yield* promise(() =>
          Example().Create({
            apiVersion: "kopf.dev/v1",
            kind: "KopfExample",
            metadata: { name: "first", namespace: "default" },
          }),
        );
        const seen: Array<string> = [];
        const watcher = Example({ namespace: "default" }).Watch((object, phase) => {
          seen.push(`${phase}:${object.metadata?.name}`);
        });
        yield* Effect.acquireRelease(
          promise(() => watcher.start()),
          () => Effect.sync(() => watcher.close()),
        );
        yield* eventually(
          Effect.sync(() => seen.length),
          (n) => n >= 1,
        );
        yield* promise(() =>
          Example().Create({
            apiVersion: "kopf.dev/v1",
            kind: "KopfExample",
            metadata: { name: "second", namespace: "default" },
          }),
        );
        yield* promise(() =>
          Example({ namespace: "default", name: "second" }).Patch([
            { op: "add", path: "/spec", value: { v: 1 } },
          ]),
        );
        yield* promise(() => Example({ namespace: "default" }).Delete("second"));
        yield* eventually(
          Effect.sync(() => seen),
          (events) => events.includes("DELETED:second"),
        );
        assert.deepStrictEqual(
          seen.filter((event) => !event.startsWith("BOOKMARK")),
          ["ADDED:first", "ADDED:second", "MODIFIED:second", "DELETED:second"],
        );
      }),
    ),
  );
});
