// The benchmark's own API client (the project's KubeApi over the live transport): it creates and
// deletes the objects and counts the writes each object received, as MODIFIED watch events, the
// same way for both operators.
import { CredentialsVault, KubeApi, KubeClient, NodeTransport } from "@kopf/client";
import { KopfRunner } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as References from "effect/References";
import * as Stream from "effect/Stream";

const { kopfExamples, namespaces } = KopfRunner;

/** Where both operators keep an object's last-handled configuration (its essence). */
export const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

/** Counts the writes objects receive, from a watch of the namespace. */
export interface WriteCounter {
  /**
   * Waits until `n` objects carry both marks of a finished creation (the last-handled
   * configuration and the handler's result), then until no event arrived for `quietMs`.
   */
  readonly settleCreated: (n: number, quietMs: number, maxMs: number) => Promise<void>;
  /** Waits until `n` objects were deleted, then until no event arrived for `quietMs`. */
  readonly settleDeleted: (n: number, quietMs: number, maxMs: number) => Promise<void>;
  /** MODIFIED events so far, by object name. */
  readonly counts: () => ReadonlyMap<string, number>;
  readonly stop: () => Promise<void>;
}

/** A client bound to one cluster (kubeconfig) and one namespace. */
export interface BenchClient {
  readonly createNamespace: () => Promise<void>;
  readonly create: (names: ReadonlyArray<string>) => Promise<void>;
  readonly delete: (names: ReadonlyArray<string>) => Promise<void>;
  /** An object as the API server has it now. */
  readonly read: (name: string) => Promise<Record<string, any>>;
  /** Starts counting MODIFIED events per object (the writes each object received). */
  readonly countWrites: () => Promise<WriteCounter>;
  /**
   * Makes the emulator answer every request of `verb` `delayMillis` later (its control surface):
   * an API server as far away as that, for what a distance changes.
   */
  readonly delay: (verb: string, delayMillis: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

export const make = (kubeconfig: string, namespace: string): BenchClient => {
  const login = KubeClient.defaultLogin({ kubeconfig: { paths: kubeconfig } });
  const layer = KubeApi.layer().pipe(
    Layer.provideMerge(Layer.mergeAll(CredentialsVault.layer({ login }), NodeTransport.layer())),
    Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Warn")),
  );
  const runtime = ManagedRuntime.make(layer);
  const api = <A, E>(f: (api: KubeApi["Service"]) => Effect.Effect<A, E>) =>
    runtime.runPromise(
      Effect.gen(function* () {
        return yield* f(yield* KubeApi);
      }),
    );
  return {
    createNamespace: () =>
      api((k) =>
        k.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }),
      ).then(() => undefined),
    create: (names) =>
      api((k) =>
        Effect.forEach(
          names,
          (name) =>
            k.create(kopfExamples, {
              apiVersion: "kopf.dev/v1",
              kind: "KopfExample",
              metadata: { name, namespace },
              spec: { field: "value" },
            }),
          { concurrency: CONCURRENCY, discard: true },
        ),
      ),
    delete: (names) =>
      api((k) =>
        Effect.forEach(names, (name) => k.delete(kopfExamples, { namespace, name }), {
          concurrency: CONCURRENCY,
          discard: true,
        }),
      ),
    read: (name) => api((k) => k.get(kopfExamples, { namespace, name })) as Promise<Record<string, any>>,
    countWrites: async () => {
      const counts = new Map<string, number>();
      const created = new Set<string>();
      const deleted = new Set<string>();
      let lastEvent = performance.now();
      const fiber = await runtime.runPromise(
        Effect.gen(function* () {
          const k = yield* KubeApi;
          // Watch from the listing's version: no write is missed while the watch connects.
          const listed = yield* k.list(kopfExamples, { namespace, limit: 1 });
          const resourceVersion = listed.metadata?.resourceVersion;
          return yield* k.watch(kopfExamples, { namespace, resourceVersion, timeoutSeconds: 3600 }).pipe(
            Stream.runForEach((event) =>
              Effect.sync(() => {
                lastEvent = performance.now();
                const name = event.object.metadata?.name;
                if (typeof name !== "string") return;
                if (event.type === "MODIFIED") counts.set(name, (counts.get(name) ?? 0) + 1);
                if (event.type === "DELETED") deleted.add(name);
                const status = event.object.status as { create_fn?: unknown } | undefined;
                if (
                  event.object.metadata?.annotations?.[LAST_HANDLED] !== undefined &&
                  status?.create_fn !== undefined
                )
                  created.add(name);
              }),
            ),
            Effect.tapCause((cause) =>
              Effect.sync(() => console.error(`the write counter failed: ${cause}`)),
            ),
            Effect.forkDetach,
          );
        }),
      );
      const settle = async (seen: Set<string>, n: number, quietMs: number, maxMs: number) => {
        const deadline = performance.now() + maxMs;
        const pending = () => seen.size < n || performance.now() - lastEvent < quietMs;
        while (pending()) {
          if (performance.now() > deadline)
            throw new Error(`only ${seen.size} of ${n} objects were seen done`);
          await new Promise((done) => setTimeout(done, 20));
        }
      };
      return {
        settleCreated: (n, quietMs, maxMs) => settle(created, n, quietMs, maxMs),
        settleDeleted: (n, quietMs, maxMs) => settle(deleted, n, quietMs, maxMs),
        counts: () => counts,
        stop: () => runtime.runPromise(Fiber.interrupt(fiber)).then(() => undefined),
      };
    },
    delay: (verb, delayMillis) =>
      api((k) => k.raw({ method: "POST", path: "/.emulator/latency", body: { verb, delayMillis } })).then(
        () => undefined,
      ),
    close: () => runtime.dispose(),
  };
};
