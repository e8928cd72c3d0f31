// Covers the watcher over real sockets: the live client (kubeconfig with the emulator's CA and a
// token, undici transport) against the emulator's HTTPS server on 127.0.0.1. Dropped streams
// resume from the last resourceVersion without a relist and without losing or duplicating an
// event; a compacted history gives exactly one relist; a paused server (connections dropped,
// new ones refused) is waited out with backoff and the stream resumes after it comes back.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, layer } from "@effect/vitest";
import { KubeApi, KubeClient } from "@kopf/client";
import { EmulatorServer, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { OperatorSettings, Settings } from "@kopf/settings";
import { type RawBody, Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Metric from "effect/Metric";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import * as WatchMetrics from "../src/internal/watchMetrics.ts";
import * as Watcher from "../src/Watcher.ts";
import * as Emulated from "./fixtures/Emulated.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-watcher-https-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = "watcher-token";
const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const fast = Settings.make({
  networking: { errorBackoffs: [0.05, 0.05] },
  watching: { reconnectBackoff: 0.05 },
});
const settings = fast._tag === "Success" ? fast.success : Settings.defaults;

const serverLayer = EmulatorServer.layer({ tls: true, token: TOKEN, host: "127.0.0.1" }).pipe(
  Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
);

/** Runs `body` with a live client for the shared HTTPS emulator, and a namespace `ns`. */
const withCluster = <A, E>(
  ns: string,
  body: Effect.Effect<A, E, KubeApi | EmulatorServer | KubeEmulator | Scope.Scope>,
) =>
  Effect.gen(function* () {
    const server = yield* EmulatorServer;
    const path = join(dir, `kubeconfig-${ns}`);
    const ca = Buffer.from(server.caPem).toString("base64");
    writeFileSync(
      path,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "emu", cluster: { server: server.url, "certificate-authority-data": ca } }],
        users: [{ name: "me", user: { token: TOKEN } }],
        contexts: [{ name: "emu", context: { cluster: "emu", user: "me" } }],
        "current-context": "emu",
      }),
    );
    const emulator = yield* KubeEmulator;
    yield* emulator.apply([Emulated.crd(), { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }]);
    return yield* body.pipe(
      Effect.scoped,
      Effect.provide(Layer.fresh(KubeClient.layer({ kubeconfig: { paths: path } }))),
    );
  }).pipe(Effect.provideService(OperatorSettings, settings));

const eventually = (check: () => boolean, what: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 600 && !check(); i++) yield* Effect.sleep(25);
    assert.isTrue(check(), `timed out waiting for ${what}`);
  });

const object = (name: string): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name },
});

const run = (ns: string, options: Watcher.Options = {}) =>
  Effect.gen(function* () {
    const seen: Array<Watcher.Item> = [];
    yield* Effect.forkScoped(
      Stream.runForEach(Watcher.stream(kex, ns, { inactivityTimeout: 30, ...options }), (item) =>
        Effect.sync(() => seen.push(item)),
      ),
    );
    yield* eventually(() => seen.some((i) => i._tag === "Listed"), "the listing");
    return seen;
  });

const relists = (ns: string) =>
  Metric.value(
    Metric.withAttributes(WatchMetrics.relists, { resource: "kopfexamples.v1.kopf.dev", namespace: ns }),
  ).pipe(Effect.map((state) => state.count));
const written = (body: RawBody) => `${body.metadata?.name}@${body.metadata?.resourceVersion}`;
const delivered = (items: ReadonlyArray<Watcher.Item>) =>
  items.flatMap((i) => (i._tag === "Event" && i.type !== null ? [written(i.object)] : []));

// One server (its CA and certificates take a while to generate) for every test; each test uses
// its own namespace and client.
layer(serverLayer, { excludeTestServices: true, timeout: "60 seconds" })("Watcher over HTTPS", (it) => {
  it.effect("dropped streams resume without relisting, losing or duplicating events", () =>
    withCluster(
      "https-drops",
      Effect.gen(function* () {
        const api = yield* KubeApi;
        const server = yield* EmulatorServer;
        const seen = yield* run("https-drops");
        const writes: Array<string> = [];
        for (let round = 0; round < 5; round++) {
          writes.push(written(yield* api.create(kex, object(`o${round}`), { namespace: "https-drops" })));
          yield* server.control.dropWatches;
          writes.push(written(yield* api.create(kex, object(`p${round}`), { namespace: "https-drops" })));
          yield* Effect.sleep(20);
        }
        yield* eventually(() => delivered(seen).length >= writes.length, "every event");
        yield* Effect.sleep(200);
        assert.deepStrictEqual(delivered(seen), writes);
        assert.strictEqual(yield* relists("https-drops"), 1);
      }),
    ),
  );

  it.effect("a compacted history gives exactly one relist", () =>
    withCluster(
      "https-gone",
      Effect.gen(function* () {
        const api = yield* KubeApi;
        const server = yield* EmulatorServer;
        yield* api.create(kex, object("a"), { namespace: "https-gone" });
        // A quiet stream that ends is resumed after the backoff: 1 s leaves time to compact first.
        const seen = yield* run("https-gone", { reconnectBackoff: 1 });
        yield* Effect.sleep(300); // the watch request is open
        yield* server.control.dropWatches;
        yield* api.create(kex, object("b"), { namespace: "https-gone" });
        yield* server.control.compactHistory;
        yield* eventually(() => seen.filter((i) => i._tag === "Listed").length === 2, "the relisting");
        yield* Effect.sleep(300);
        assert.strictEqual(yield* relists("https-gone"), 2);
        assert.deepStrictEqual(
          seen.flatMap((i) => (i._tag === "Problem" ? [i.reason] : [])),
          ["Gone"],
        );
      }),
    ),
  );

  it.effect("a paused server is waited out and the stream resumes without relisting", () =>
    withCluster(
      "https-pause",
      Effect.gen(function* () {
        const api = yield* KubeApi;
        const server = yield* EmulatorServer;
        const seen = yield* run("https-pause");
        yield* server.control.pause;
        yield* Effect.sleep(300);
        yield* server.control.resume;
        const late = written(yield* api.create(kex, object("late"), { namespace: "https-pause" }));
        yield* eventually(() => delivered(seen).includes(late), "the event after the pause");
        assert.strictEqual(yield* relists("https-pause"), 1);
        assert.isTrue(seen.some((i) => i._tag === "Problem" && i.reason === "WatchFailed"));
      }),
    ),
  );
});
