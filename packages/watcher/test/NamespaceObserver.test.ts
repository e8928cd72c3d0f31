// Covers the namespace observer in virtual time: cluster-wide ({null}, no watching), scanning
// disabled (specific names only), patterns with namespaces created and deleted mid-run
// (terminating namespaces with blockers kept), 403 on listing (fallback to the specific names),
// and a 410 relist dropping namespaces deleted while disconnected.

import { assert, describe, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as SubscriptionRef from "effect/SubscriptionRef";
import { TestClock } from "effect/testing";
import * as NamespaceObserver from "../src/NamespaceObserver.ts";
import * as FakeCluster from "./fixtures/FakeCluster.ts";
import * as LogCapture from "./fixtures/LogCapture.ts";

const settle = Effect.gen(function* () {
  for (let i = 0; i < 100; i++) yield* Effect.yieldNow;
});
const ns = (name: string, extra: Partial<RawBody> = {}): RawBody => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, uid: `uid-${name}` },
  ...extra,
});
const names = (observer: NamespaceObserver.NamespaceObserver) =>
  Effect.map(SubscriptionRef.get(observer.namespaces), (set) => [...set].map(String).sort());

describe("NamespaceObserver.make", () => {
  it.effect("cluster-wide serves {null} without touching the API", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeCluster.make;
        const observer = yield* NamespaceObserver.make(fake, { clusterwide: true, namespaces: ["ns*"] });
        assert.deepStrictEqual([...(yield* SubscriptionRef.get(observer.namespaces))], [null]);
        assert.strictEqual(fake.lists.length, 0);
      }),
    ),
  );

  it.effect("with scanning disabled, only the specific names are served", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeCluster.make;
        const observer = yield* NamespaceObserver.make(fake, {
          clusterwide: false,
          namespaces: ["ns1", "ns*", "team-a,team-b"],
          scanningDisabled: true,
        });
        assert.deepStrictEqual(yield* names(observer), ["ns1"]);
        assert.strictEqual(fake.lists.length, 0);
      }),
    ),
  );

  it.effect("follows namespaces matching the patterns as they are created and deleted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeCluster.make;
        yield* fake.put("ADDED", ns("ns1"));
        yield* fake.put("ADDED", ns("ns9"));
        yield* fake.put("ADDED", ns("default"));
        const observer = yield* NamespaceObserver.make(fake, {
          clusterwide: false,
          namespaces: ["ns*,!ns9"],
        });
        assert.deepStrictEqual(yield* names(observer), ["ns1"]);

        yield* fake.put("ADDED", ns("ns2"));
        yield* fake.put("ADDED", ns("other"));
        yield* settle;
        assert.deepStrictEqual(yield* names(observer), ["ns1", "ns2"]);

        const terminating = {
          metadata: { name: "ns1", uid: "uid-ns1", deletionTimestamp: "2026-01-01T00:00:00Z" },
          status: {
            phase: "Terminating",
            conditions: [
              {
                type: "NamespaceContentRemaining",
                status: "True",
                reason: "SomeResourcesRemain",
                message: "1 pod",
              },
            ],
          },
        };
        yield* fake.put("MODIFIED", ns("ns1", terminating));
        yield* settle;
        assert.deepStrictEqual(yield* names(observer), ["ns1", "ns2"]);
        yield* fake.put("DELETED", ns("ns1", terminating));
        yield* settle;
        assert.deepStrictEqual(yield* names(observer), ["ns2"]);
      }),
    ),
  );

  it.effect("a relisting after 410 drops namespaces deleted while disconnected", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeCluster.make;
        yield* fake.put("ADDED", ns("ns1"));
        yield* fake.put("ADDED", ns("ns2"));
        const observer = yield* NamespaceObserver.make(fake, { clusterwide: false, namespaces: ["ns*"] });
        yield* fake.dropWatches;
        yield* fake.put("DELETED", ns("ns1"));
        yield* fake.put("ADDED", ns("ns3"));
        yield* fake.compact;
        yield* settle;
        for (let i = 0; i < 3; i++) {
          yield* TestClock.adjust("100 millis");
          yield* settle;
        }
        assert.strictEqual(fake.lists.length, 2);
        assert.deepStrictEqual(yield* names(observer), ["ns2", "ns3"]);
      }),
    ),
  );

  it.effect("403 on listing falls back to the specific names and stops", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* FakeCluster.make;
        fake.failNext("list", FakeCluster.failure("Forbidden", "namespaces is forbidden", 403));
        const logs = LogCapture.make();
        const observer = yield* NamespaceObserver.make(fake, {
          clusterwide: false,
          namespaces: ["ns1", "ns2", "ns*"],
        }).pipe(Effect.provide(logs.layer));
        assert.deepStrictEqual(yield* names(observer), ["ns1", "ns2"]);
        assert.include(
          logs.lines,
          'WARN Not enough permissions to list namespaces. Falling back to a list of namespaces which are assumed to exist: ["ns1","ns2"]',
        );
        yield* TestClock.adjust("1 minute");
        yield* settle;
        assert.strictEqual(fake.lists.length, 1);
      }),
    ),
  );
});
