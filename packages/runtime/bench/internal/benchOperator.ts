// The operator of the overhead benchmark (overhead.bench.ts), set up for one run: a fresh
// emulator with the namespace and the KopfExample resource, an operator with one trivial create
// handler watching that namespace through the emulator's own transport (no sockets) or the live
// client over HTTPS to the emulator's server in the same process, its requests counted by verb and
// the watch events reaching it by their lines,
// and a log sink that counts the objects processed ("Creation is processed"); with `deletion`, a
// delete handler too. Its frames are the
// benchmark's own for the seams (internal/seams.ts): the handler is the framework's call of user
// code, the sink stands for a logging backend.
import { CredentialsVault, KubeApi, KubeTransport, MetricRecording, NodeTransport } from "@kopf/client";
import { EmulatorServer, EmulatorTransport, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { Registry } from "@kopf/registry";
import { Applying, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Deferred from "effect/Deferred";
import type * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import { Logging, Operator } from "../../src/index.ts";
import { onApiServerSide } from "./apiServerSide.ts";
import type { StepCounter } from "./effectSteps.ts";

/** How the benchmark's operator runs. */
export interface Setup {
  /** The namespace the objects are created in and the operator watches. */
  readonly namespace: string;
  /** The live client over HTTPS to the emulator's server, instead of the emulator's transport. */
  readonly https: boolean;
  /** Whether the operator records metrics (as `kopf run` does with a metrics endpoint). */
  readonly metrics: boolean;
  /** After how many objects processed `allDone` completes. */
  readonly objects: number;
  /** A delete handler too: every object gets the finalizer, and its deletion is handled. */
  readonly deletion: boolean;
  /** Counts the run-loop steps of the operator's fibers (those it forks too). */
  readonly steps: StepCounter;
}

/** A running benchmark operator and what the run reads of it. */
export interface BenchOperator {
  /** Creates a KopfExample named `name` straight into the emulator's store (as a client would). */
  readonly create: (name: string) => Effect.Effect<unknown>;
  /** Deletes the KopfExample named `name` (as a client would): marked for deletion if it has the finalizer. */
  readonly remove: (name: string) => Effect.Effect<unknown>;
  /** Completes when the first object has been processed. */
  readonly warmedUp: Deferred.Deferred<void>;
  /** Completes when `objects` objects have been processed since the last {@link reset}. */
  readonly allDone: Deferred.Deferred<void>;
  /**
   * Objects processed, handler calls, the operator's requests by verb and the watch events that
   * reached it since the last reset.
   */
  readonly counts: () => {
    readonly processed: number;
    readonly handled: number;
    readonly lastProcessed: number;
    readonly requests: ReadonlyMap<string, number>;
    readonly events: number;
  };
  /**
   * Waits until every event of `objects` objects has reached the operator since the last reset (one
   * per create or delete, one per patch: each changes the object), or none has for a second, then
   * `settle` more for the last ones to be handled.
   */
  readonly settled: (objects: number, settle: Duration.Input) => Effect.Effect<void>;
  /** Waits until the operator has sent `patches` patches since the last reset. */
  readonly patched: (patches: number) => Effect.Effect<void>;
  /** Starts the counts afresh. */
  readonly reset: () => void;
  /** The operator's fiber. */
  readonly fiber: Fiber.Fiber<unknown, unknown>;
}

const createBody = (name: string, namespace: string) =>
  new TextEncoder().encode(
    JSON.stringify({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name, namespace },
      spec: { field: "value" },
    }),
  );

/**
 * Starts a fresh emulator and the operator on it, in the current scope, once it is ready.
 *
 * @example
 * const bench = yield* benchOperator({ namespace: "bench", https: false, metrics: false, objects: 5000 })
 * yield* bench.create("warm-up")
 */
export const benchOperator = (setup: Setup): Effect.Effect<BenchOperator, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { namespace } = setup;
    const emulatorContext = yield* Layer.build(KubeEmulator.layer());
    const emulator = Context.get(emulatorContext, KubeEmulator);
    const client = EmulatorTransport.client().pipe(Layer.provide(Layer.succeedContext(emulatorContext)));
    const applying = Context.get(yield* Layer.build(client), KubeApi);
    yield* Applying.apply([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
      KopfRunner.customResourceDefinition({}),
    ]).pipe(Effect.provideService(KubeApi, applying), Effect.orDie);

    // The operator's client: the emulator's own transport, or the live one over HTTPS.
    const emulatorLayer = Layer.succeedContext(emulatorContext);
    const server = setup.https
      ? Context.get(
          yield* Layer.build(
            EmulatorServer.layer({ tls: true }).pipe(
              Layer.provide(Layer.merge(emulatorLayer, FaultInjector.layer)),
            ),
          ).pipe(Effect.orDie),
          EmulatorServer,
        )
      : undefined;
    const credentials =
      server === undefined
        ? EmulatorTransport.credentials()
        : {
            main: { server: server.url, caData: server.caPem, token: "bench", priority: 0, trustEnv: false },
          };
    const requests = new Map<string, number>();
    let events = 0;
    const counted = <R>(made: Effect.Effect<KubeTransport["Service"], never, R>) =>
      Effect.map(made, (inner) =>
        KubeTransport.of({
          request: (request) =>
            Effect.suspend(() => {
              requests.set(request.method, (requests.get(request.method) ?? 0) + 1);
              return server === undefined ? onApiServerSide(inner.request(request)) : inner.request(request);
            }),
          // The watch events that reach the operator, counted by their lines.
          stream: (request) =>
            Effect.map(inner.stream(request), (response) => ({
              ...response,
              body: Stream.map(response.body, function countEventLines(chunk) {
                for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) events += 1;
                return chunk;
              }),
            })),
          deadlines: inner.deadlines,
        }),
      );
    const counting = (
      server === undefined
        ? Layer.effect(KubeTransport, counted(EmulatorTransport.make()))
        : Layer.effect(KubeTransport, counted(NodeTransport.make()))
    ).pipe(Layer.provide(emulatorLayer));
    const operatorClient = KubeApi.layer().pipe(
      Layer.provideMerge(Layer.mergeAll(CredentialsVault.layerStatic(credentials), counting)),
    );

    let processed = 0;
    let handled = 0;
    let lastProcessed = 0;
    const warmedUp = yield* Deferred.make<void>();
    const allDone = yield* Deferred.make<void>();
    const registry = Registry.make();
    registry.on.create("kopfexamples", function create_fn() {
      handled += 1;
      return { ok: true };
    });
    if (setup.deletion)
      registry.on.delete("kopfexamples", function delete_fn() {
        handled += 1;
      });
    const logger = Logger.make(function benchLogSink(options) {
      const record = Logging.recordOf(options);
      if (record.message.startsWith("Creation is processed")) {
        processed += 1;
        lastProcessed = performance.now();
        if (processed === 1) Deferred.doneUnsafe(warmedUp, Effect.void);
        if (processed === setup.objects) Deferred.doneUnsafe(allDone, Effect.void);
      }
    });
    const ready = yield* Deferred.make<void>();
    const fiber = yield* Effect.forkScoped(
      Operator.run({ registry, namespaces: [namespace], standalone: true, ready }).pipe(
        setup.steps.counting,
        Effect.provide(
          Layer.mergeAll(
            operatorClient,
            Logger.layer([logger], { mergeWithExisting: false }),
            Layer.succeed(References.MinimumLogLevel, "Info"),
            // As `kopf run` without a trace export (Operating.run's tracing layer): no spans.
            Layer.succeed(References.TracerEnabled, false),
            // As `kopf run` without a metrics endpoint: no metrics (unless asked for, as with one).
            Layer.succeed(MetricRecording.Recording, setup.metrics),
          ),
        ),
      ),
    );
    yield* Deferred.await(ready);
    const user = { username: "bench", groups: ["system:masters"] };
    const collection = `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples`;
    // A request of a client, straight to the emulator's store.
    const send = (method: string, path: string, body?: Uint8Array) =>
      emulator.handle({
        method,
        path,
        query: new URLSearchParams(),
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body,
        user,
      });
    const patches = () => requests.get("PATCH") ?? 0;
    // Looks every 5 ms until `done`; ten minutes without it fail the run.
    const until = (done: () => boolean): Effect.Effect<void> =>
      Effect.gen(function* () {
        while (!done()) yield* Effect.sleep("5 millis");
      }).pipe(Effect.timeout("600 seconds"), Effect.orDie);
    return {
      create: (name) => send("POST", collection, createBody(name, namespace)),
      remove: (name) => send("DELETE", `${collection}/${name}`),
      warmedUp,
      allDone,
      counts: () => ({ processed, handled, lastProcessed, requests, events }),
      settled: (objects, settle) =>
        Effect.suspend(() => {
          // A patch that changed nothing would make no event: no new event for a second (200
          // looks) ends the wait too, rather than the run.
          let seen = events;
          let still = 0;
          return Effect.andThen(
            until(() => {
              still = events === seen ? still + 1 : 0;
              seen = events;
              return events >= objects + patches() || still >= 200;
            }),
            Effect.sleep(settle),
          );
        }),
      patched: (count) => until(() => patches() >= count),
      reset: () => {
        processed = 0;
        handled = 0;
        events = 0;
        requests.clear();
      },
      fiber,
    };
  });
