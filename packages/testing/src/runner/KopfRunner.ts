/**
 * `KopfRunner` (Kopf's `kopf.testing.KopfRunner`, docs/guide/testing.md): runs an operator in-process for a
 * test — by command-line arguments like `kopf run` (given the CLI's `main`), or by a registry —
 * against the cluster `KOPF_TEST_CLUSTER` names (an in-process emulator by default; see
 * `Clusters.selected`), the emulator over HTTPS, or any cluster, and exposes its
 * output, exit code and exception. It is an `await using` resource (stopping gracefully on
 * dispose: handlers finish, cleanup handlers run) and has an Effect-scoped form ({@link scoped}).
 * Helpers apply objects to the cluster and wait for conditions on them.
 *
 * @example
 * ```ts
 * import { Cli } from "@kopf/cli"
 * import { KopfRunner } from "@kopf/testing"
 * import { expect, it } from "vitest"
 *
 * it("handles a created object", async () => {
 *   await using runner = await KopfRunner.start({ args: ["run", "-n", "default", "src/handlers.ts"], cli: Cli.main })
 *   await runner.apply("../crd.yaml")
 *   await runner.apply("../obj.yaml")
 *   const body = await runner.waitFor(KopfRunner.kopfExamples, "kopf-example-1", "default", (b) => b.status?.create_fn !== undefined)
 *   expect(body.status.create_fn).toEqual({ message: "hello world" })
 *   await runner.stop()
 *   expect(runner.exitCode).toBe(0)
 *   expect(runner.output).toContain("[default/kopf-example-1] Handler 'create_fn' succeeded.")
 * })
 * ```
 */
import type { KubeApi, Method } from "@kopf/client";
import { EmulatorCommand, type KubeEmulator } from "@kopf/emulator";
import { Resource } from "@kopf/structs";
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as Applying from "./Applying.ts";
import * as Clusters from "./Clusters.ts";
import * as Access from "./internal/access.ts";
import * as Launching from "./internal/launching.ts";
import * as Polling from "./internal/polling.ts";
import { KopfRunnerError, type KopfRunnerOptions } from "./KopfRunnerOptions.ts";
import * as TestProcess from "./node/TestProcess.ts";
import * as Requests from "./Requests.ts";
import type { Body } from "./Resources.ts";

export {
  type CliIo,
  type CliMain,
  KopfRunnerError,
  type KopfRunnerOptions,
} from "./KopfRunnerOptions.ts";

export {
  type Body,
  type CrdOptions,
  configmaps,
  customResourceDefinition,
  customResourceDefinitions,
  events,
  kopfExampleCrd,
  kopfExamples,
  namespaces,
  pods,
} from "./Resources.ts";

/** A running operator under test. */
export class KopfRunner implements AsyncDisposable {
  #stdout = "";
  #stderr = "";
  #exitCode: number | undefined;
  #exception: unknown;
  #stopped = false;
  readonly #controller = new AbortController();
  readonly #context: Context.Context<KubeApi>;
  /** The cluster this runner built (and tears down when stopped); `undefined` when given one. */
  readonly #owned: Clusters.Built | undefined;
  readonly #options: KopfRunnerOptions;
  #done: Promise<void> = Promise.resolve();
  #ready: Promise<void> = Promise.resolve();

  private constructor(
    options: KopfRunnerOptions,
    context: Context.Context<KubeApi>,
    owned: Clusters.Built | undefined,
  ) {
    this.#options = options;
    this.#context = context;
    this.#owned = owned;
  }

  /**
   * Starts the operator and waits until it is ready (or has exited, e.g. on a usage error).
   *
   * @example
   * ```ts
   * await using runner = await KopfRunner.start({ registry, namespaces: ["default"] })
   * ```
   */
  static async start(options: KopfRunnerOptions): Promise<KopfRunner> {
    const given = options.cluster;
    const built =
      given !== undefined && Clusters.isBuilt(given)
        ? undefined
        : await Clusters.build(given ?? Clusters.selected());
    const cluster = built ?? (given as Clusters.Built);
    const runner = new KopfRunner(options, cluster.context, built);
    runner.#launch();
    await runner.#ready;
    return runner;
  }

  #launch(): void {
    const sink = {
      stdout: (text: string) => {
        this.#stdout += text;
      },
      stderr: (text: string) => {
        this.#stderr += text;
      },
    };
    const launched = Launching.launch(this.#options, this.#context, this.#controller.signal, sink);
    this.#ready = launched.ready;
    this.#done = launched.done.then((result) => {
      this.#exitCode = result.exitCode;
      this.#exception = result.exception;
    });
  }

  /** Everything written: standard output, then the log lines and errors. */
  get output(): string {
    return this.#stdout + this.#stderr;
  }
  /** Help and usage output. */
  get stdout(): string {
    return this.#stdout;
  }
  /** Log lines and error messages. */
  get stderr(): string {
    return this.#stderr;
  }
  /** The exit code once the operator has exited (0 after a graceful stop), else `undefined`. */
  get exitCode(): number | undefined {
    return this.#exitCode;
  }
  /** Why the operator failed (a load error, a startup failure, a usage error), if it did. */
  get exception(): unknown {
    return this.#exception;
  }

  /**
   * Stops the operator gracefully and waits (at most `timeout`); throws the operator's exception
   * if `reraise` (the default), or `KopfRunnerError` if it did not stop in time.
   */
  async stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#controller.abort();
      const timeout = this.#options.timeout ?? 30_000;
      const outcome = await Effect.runPromise(
        Effect.raceFirst(
          Effect.promise(() => this.#done).pipe(Effect.as("done" as const)),
          Effect.sleep(timeout).pipe(Effect.as("expired" as const)),
        ),
      );
      await this.#owned?.close();
      if (outcome === "expired") {
        throw new KopfRunnerError({
          reason: "StillRunning",
          message: "The operator didn't stop, still running.",
        });
      }
    }
    if (this.#exception !== undefined && this.#options.reraise !== false) throw this.#exception;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** Runs an effect against the runner's cluster (its `KubeApi`, and the `KubeEmulator` if any). */
  run<A, E>(effect: Effect.Effect<A, E, KubeApi | KubeEmulator>): Promise<A> {
    return Effect.runPromise(
      Effect.provideContext(effect, this.#context as unknown as Context.Context<KubeApi | KubeEmulator>),
    );
  }

  /**
   * Creates, or merge-patches when they exist, objects in the cluster: a YAML file path
   * (multi-document, relative to `cwd`) or objects. Namespaced objects without a namespace go to
   * `default`; a CRD is waited for until it is established and served.
   *
   * @example
   * ```ts
   * await runner.apply("examples/crd.yaml")
   * await runner.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } })
   * ```
   */
  async apply(objects: string | ReadonlyArray<unknown> | Record<string, unknown>): Promise<void> {
    const list =
      typeof objects === "string"
        ? await Effect.runPromise(
            EmulatorCommand.readObjects(TestProcess.resolvePath(objects, this.#options.cwd)),
          )
        : Array.isArray(objects)
          ? objects
          : [objects];
    await this.run(Applying.apply(list));
  }

  /**
   * Sends one request as kubectl does (once, whatever the status) and answers what the client
   * got: status, parsed body, `Warning` header. For what a client sees of admission and the like.
   *
   * @example
   * ```ts
   * const answer = await runner.request("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples", object)
   * expect(answer.status).toBe(400)
   * ```
   */
  async request(
    method: Method,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<Requests.Answer> {
    return Effect.runPromise(Requests.sendOn(this.#context, method, path, body, contentType));
  }

  /** Gets an object, or `undefined` if it does not exist. */
  get(resource: Resource.Resource, name: string, namespace?: string): Promise<Body | undefined> {
    return this.run(Access.get(resource, name, namespace));
  }

  /** The objects of a resource in a namespace (all namespaces when absent). */
  list(resource: Resource.Resource, namespace?: string): Promise<ReadonlyArray<Body>> {
    return this.run(Access.list(resource, namespace));
  }

  /**
   * Merge-patches an object (like `kubectl patch --type merge`); answers the patched object.
   *
   * @example
   * ```ts
   * await runner.patch(KopfRunner.kopfExamples, "kopf-example-1", "default", { spec: { field: "changed" } })
   * ```
   */
  patch(
    resource: Resource.Resource,
    name: string,
    namespace: string | undefined,
    body: unknown,
  ): Promise<Body> {
    return this.run(Access.patch(resource, name, namespace, body));
  }

  /** Deletes an object (no error if it is gone). */
  delete(resource: Resource.Resource, name: string, namespace?: string): Promise<void> {
    return this.run(Access.remove(resource, name, namespace));
  }

  /**
   * Polls an object until `condition` holds (the object may not exist yet: `undefined`); answers
   * the object. Throws `KopfRunnerError` after `timeout` milliseconds (default 20 s).
   */
  async waitFor(
    resource: Resource.Resource,
    name: string,
    namespace: string | undefined,
    condition: (body: Body | undefined) => boolean,
    options: { readonly timeout?: number; readonly interval?: number } = {},
  ): Promise<Body | undefined> {
    return Polling.until(
      () => this.get(resource, name, namespace),
      condition,
      (body) =>
        `${Resource.format(resource)} ${namespace ?? ""}/${name} did not reach the condition; it is: ${JSON.stringify(body)}\n--- output ---\n${this.output}`,
      options,
    );
  }

  /** Waits until the output contains `text` (default timeout 20 s). */
  async waitForOutput(text: string, options: { readonly timeout?: number } = {}): Promise<void> {
    await Polling.until(
      () => this.output,
      (output) => output.includes(text),
      (output) => `The output has no ${JSON.stringify(text)}:\n${output}`,
      options,
    );
  }
}

/**
 * Starts a runner (see {@link KopfRunner.start}).
 *
 * @example
 * ```ts
 * await using runner = await KopfRunner.start({ registry })
 * ```
 */
export const start = (options: KopfRunnerOptions): Promise<KopfRunner> => KopfRunner.start(options);

/**
 * The Effect-scoped form: starts a runner, stops it when the scope closes.
 *
 * @example
 * ```ts
 * it.effect("handles objects", () => Effect.scoped(Effect.gen(function* () {
 *   const runner = yield* KopfRunner.scoped({ registry })
 *   yield* Effect.promise(() => runner.apply(objects))
 * })))
 * ```
 */
export const scoped = (options: KopfRunnerOptions): Effect.Effect<KopfRunner, unknown, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => KopfRunner.start(options), catch: (error) => error }),
    (runner) => Effect.promise(() => runner.stop().catch(() => undefined)),
  );
