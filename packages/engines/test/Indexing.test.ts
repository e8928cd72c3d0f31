/**
 * Indexing end to end (docs/behaviour/indexing.md): handlers of every kind see the indices by name; objects that
 * existed before the start are all listed and indexed before any handler runs; values follow
 * changes, deletions and filter mismatches; errors follow the errors mode (ignored keeps stale
 * values, temporary removes them until the delay passed, permanent excludes the object).
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { type Index, PermanentError, Registry, TemporaryError } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import { KopfRunner } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Indexing from "../src/Indexing.ts";
import * as H from "./fixtures/Harness.ts";

type ByApp = { readonly byApp: Index<string, string> };

const entries = (index: Index<unknown, unknown> | undefined) =>
  Object.fromEntries([...(index ?? [])].map(([k, store]) => [String(k), [...store].sort()]));

describe("indexing", () => {
  it.effect("the lines of index handlers (and of their indexing) are logged but never posted as events", () =>
    H.run(
      (lines) =>
        Effect.gen(function* () {
          const registry = Registry.make();
          registry.on.index(H.RES, function byApp({ labels, name, logger }) {
            logger.info(`indexing ${String(name)}`);
            logger.warning(`warning about ${String(name)}`);
            if (name === "bad") throw new Error("index failure");
            return { [labels.app ?? "none"]: name };
          });
          registry.on.create(H.RES, function created({ logger }) {
            logger.info("created, posted");
          });
          yield* H.startWithEngines(registry);
          yield* H.create("e1", { field: "x" }, { app: "web" });
          yield* H.create("bad", { field: "x" }, { app: "web" });
          yield* H.settle(3);
          assert.isTrue(H.logged(lines, "indexing e1"));
          assert.isTrue(H.logged(lines, "warning about e1"));
          const api = yield* KubeApi;
          const events = (yield* api.list(KopfRunner.events, { namespace: "ns1" })).items as ReadonlyArray<{
            message?: string;
          }>;
          const messages = events.map((e) => e.message ?? "");
          assert.include(messages, "created, posted");
          assert.deepStrictEqual(
            messages.filter(
              (m) => m.includes("indexing") || m.includes("warning about") || m.includes("index failure"),
            ),
            [],
          );
        }),
      { posting: { loggers: true } },
    ),
  );

  it.effect("objects listed at start are all indexed before any handler runs", () =>
    H.run(() =>
      Effect.gen(function* () {
        for (const name of ["a1", "a2", "a3"]) yield* H.create(name, { field: "x" }, { app: "web" });
        const seen: Array<number> = [];
        const registry = Registry.make();
        registry.on.index(H.RES, function byApp({ labels, name }) {
          return { [labels.app ?? "none"]: name };
        });
        registry.on.create(H.RES, function created(ctx) {
          seen.push((ctx as unknown as ByApp).byApp.get("web")?.size ?? 0);
        });
        yield* H.startWithEngines(registry);
        yield* H.settle(2);
        assert.deepStrictEqual(seen, [3, 3, 3]);
      }),
    ),
  );

  it.effect("values follow changes, deletions and filter mismatches; every handler kind sees them", () =>
    H.run(() =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.index(H.RES, { labels: { indexed: "yes" } }, function byApp({ labels, name }) {
          return { [labels.app ?? "none"]: name };
        });
        const seenByEvent: Array<unknown> = [];
        registry.on.event(H.RES, function watcher(ctx) {
          seenByEvent.push(entries((ctx as unknown as ByApp).byApp));
        });
        const { indexing } = yield* H.startWithEngines(registry);
        const byApp = () => entries(indexing.byName.get("byApp"));
        yield* H.create("o1", { field: "x" }, { app: "web", indexed: "yes" });
        yield* H.create("o2", { field: "x" }, { app: "db", indexed: "yes" });
        yield* H.settle(1);
        assert.deepStrictEqual(byApp(), { web: ["o1"], db: ["o2"] });
        yield* H.patch("o1", { metadata: { labels: { app: "db" } } });
        yield* H.settle(1);
        assert.deepStrictEqual(byApp(), { db: ["o1", "o2"] });
        yield* H.patch("o2", { metadata: { labels: { indexed: "no" } } });
        yield* H.settle(1);
        assert.deepStrictEqual(byApp(), { db: ["o1"] });
        yield* H.remove("o1");
        yield* H.settle(1);
        assert.deepStrictEqual(byApp(), {});
        assert.deepInclude(seenByEvent, { web: ["o1"], db: ["o2"] });
      }),
    ),
  );

  it.effect(
    "errors: ignored keeps stale values, temporary removes them until the delay, permanent excludes",
    () =>
      H.run(() =>
        Effect.gen(function* () {
          const registry = Registry.make();
          registry.on.index(H.RES, function ignoring({ spec, name }) {
            if (spec.field === "fail") throw new Error("boom");
            return { [String(name)]: spec.field };
          });
          registry.on.index(H.RES, function temporary({ spec, name }) {
            if (spec.field === "fail") throw new TemporaryError("later", { delay: 30 });
            return { [String(name)]: spec.field };
          });
          registry.on.index(H.RES, function permanent({ spec, name }) {
            if (spec.field === "fail") throw new PermanentError("never");
            return { [String(name)]: spec.field };
          });
          const { indexing } = yield* H.startWithEngines(registry);
          const of = (id: string) => entries(indexing.byName.get(id));
          yield* H.create("o1", { field: "ok" });
          yield* H.settle(1);
          yield* H.patch("o1", { spec: { field: "fail" } });
          yield* H.settle(1);
          assert.deepStrictEqual(of("ignoring"), { o1: ["ok"] });
          assert.deepStrictEqual(of("temporary"), {});
          assert.deepStrictEqual(of("permanent"), {});
          yield* H.patch("o1", { spec: { field: "fine" } });
          yield* H.settle(1);
          // Within the temporary delay: not re-indexed yet; the permanent one never again.
          assert.deepStrictEqual(of("ignoring"), { o1: ["fine"] });
          assert.deepStrictEqual(of("temporary"), {});
          yield* H.settle(30);
          yield* H.patch("o1", { spec: { field: "again" } });
          yield* H.settle(1);
          assert.deepStrictEqual(of("temporary"), { o1: ["again"] });
          assert.deepStrictEqual(of("permanent"), {});
        }),
      ),
  );

  it.effect("a cycle may skip indexing only for a resource without index handlers, once all is indexed", () =>
    Effect.gen(function* () {
      const other = Resource.make({ ...H.resource, plural: "others", kind: "Other" });
      // Without index handlers, the operator is indexed from the start: nothing to index, ever.
      const plain = yield* Indexing.make(Registry.make());
      assert.isTrue(plain.indexIdle(H.resource));
      assert.isTrue(plain.indexIdle(other));

      const registry = Registry.make();
      registry.on.index(H.RES, function byApp({ name }) {
        return { web: name };
      });
      const engine = yield* Indexing.make(registry);
      // Until the indexed resource's watch has listed its objects, every cycle waits for that.
      yield* engine.listing({ resource: H.resource, namespace: "ns1" });
      assert.isFalse(engine.indexIdle(H.resource));
      assert.isFalse(engine.indexIdle(other));
      yield* engine.listed({ resource: H.resource, namespace: "ns1" }, []);
      // Listed: the other resource's cycles skip the step; the indexed one's still index.
      assert.isFalse(engine.indexIdle(H.resource));
      assert.isTrue(engine.indexIdle(other));
    }),
  );
});
