/**
 * "The cluster is a parameter": acquires the cluster a {@link Target} names and yields the path
 * of a kubeconfig for it, releasing it afterwards. The emulator runs in this process behind its
 * HTTPS server (a fresh one per acquisition, calling admission webhooks as a real one does); the real API server is started with
 * `scripts/real-apiserver.sh start` (building it once, cached) under a state directory of its own
 * and stopped with `stop`; a kubeconfig target is used as it is and left alone.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmulatorServer, FaultInjector, KubeEmulator, WebhookAdmission } from "@kopf/emulator";
import { ClusterTarget as Target } from "@kopf/testing";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as Scope from "effect/Scope";

/** An acquired cluster. */
export interface Cluster {
  readonly target: Target.Target;
  /** A kubeconfig file whose current context reaches the cluster with admin rights. */
  readonly kubeconfig: string;
}

/** Why a cluster could not be acquired. */
export class ClusterError extends Data.TaggedError("ClusterError")<{
  readonly reason: "Target" | "Emulator" | "RealApiserver" | "Files";
  readonly message: string;
}> {}

/** Where the repository (and so scripts/real-apiserver.sh) is. */
export const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

const runScript = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.callback<string, ClusterError>((resume) => {
    const child = spawn("bash", [join(repositoryRoot, "scripts/real-apiserver.sh"), ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", (error) =>
      resume(
        Effect.fail(
          new ClusterError({ reason: "RealApiserver", message: `cannot run the script: ${error.message}` }),
        ),
      ),
    );
    child.on("close", (code) =>
      resume(
        code === 0
          ? Effect.succeed(stdout.trim().split("\n").pop() ?? "")
          : Effect.fail(
              new ClusterError({
                reason: "RealApiserver",
                message: `scripts/real-apiserver.sh ${args.join(" ")} failed (exit ${code}):\n${stderr.trim()}`,
              }),
            ),
      ),
    );
  });

const temporaryDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => mkdtemp(join(tmpdir(), prefix)),
      catch: (error) =>
        new ClusterError({ reason: "Files", message: `cannot create a temp dir: ${String(error)}` }),
    }),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true })),
  );

const emulator = Effect.gen(function* () {
  const dir = yield* temporaryDir("kopf-emulator-");
  const layer = EmulatorServer.layer({ tls: true }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        // The real tier's kube-apiserver runs with the ShardedListAndWatch gate on.
        KubeEmulator.layer({ featureGates: { ShardedListAndWatch: true } }).pipe(
          Layer.provide(WebhookAdmission.layer),
        ),
        FaultInjector.layer,
      ),
    ),
  );
  const context = yield* Layer.build(layer).pipe(
    Effect.mapError((error) => new ClusterError({ reason: "Emulator", message: error.message })),
  );
  const server = Context.get(context, EmulatorServer);
  const path = join(dir, "kubeconfig");
  yield* server
    .writeKubeconfig(path, { token: "kopf-conformance" })
    .pipe(Effect.mapError((error) => new ClusterError({ reason: "Files", message: error.message })));
  return path;
});

const real = Effect.gen(function* () {
  const state = yield* temporaryDir("kopf-real-state-");
  // The control plane stops by itself if this process dies before releasing it.
  const env = { KOPF_REAL_STATE: state, KOPF_REAL_EXIT_WITH: String(process.pid) };
  return yield* Effect.acquireRelease(runScript(["start"], env), () =>
    runScript(["stop"], env).pipe(Effect.ignore),
  );
});

/**
 * Acquires a cluster for the lifetime of the scope.
 *
 * @example
 * ```ts
 * const program = Effect.scoped(Effect.gen(function* () {
 *   const cluster = yield* Cluster.acquire(Target.real)
 *   // … run tests with cluster.kubeconfig …
 * }))
 * ```
 */
export const acquire = (target: Target.Target): Effect.Effect<Cluster, ClusterError, Scope.Scope> => {
  switch (target._tag) {
    case "Emulator":
      return Effect.map(emulator, (kubeconfig) => ({ target, kubeconfig }));
    case "Real":
      return Effect.map(real, (kubeconfig) => ({ target, kubeconfig }));
    case "Kubeconfig":
      return Effect.succeed({ target, kubeconfig: target.path });
  }
};

/**
 * The target named by `KOPF_TEST_CLUSTER` (the emulator when unset).
 *
 * @example
 * ```ts
 * const target = yield* Cluster.fromEnv(process.env)
 * ```
 */
export const fromEnv = (
  env: Readonly<Record<string, string | undefined>>,
): Effect.Effect<Target.Target, ClusterError> => {
  const parsed = Target.parse(env[Target.ENV_VAR]);
  return Result.isSuccess(parsed)
    ? Effect.succeed(parsed.success)
    : Effect.fail(new ClusterError({ reason: "Target", message: parsed.failure.message }));
};

/** An acquired cluster with a way to release it, for test hooks outside Effect. */
export interface OpenCluster extends Cluster {
  readonly close: () => Promise<void>;
}

/**
 * Acquires a cluster as a promise, for `beforeAll`/`afterAll`; the target defaults to the one in
 * `KOPF_TEST_CLUSTER`. Rejects with a {@link ClusterError} naming the problem.
 *
 * @example
 * ```ts
 * let cluster: Cluster.OpenCluster
 * beforeAll(async () => { cluster = await Cluster.open() }, 600_000)
 * afterAll(() => cluster.close())
 * ```
 */
export const open = async (target?: Target.Target): Promise<OpenCluster> => {
  const scope = Scope.makeUnsafe();
  const exit = await Effect.runPromiseExit(
    (target === undefined ? fromEnv(process.env) : Effect.succeed(target)).pipe(
      Effect.flatMap(acquire),
      Scope.provide(scope),
    ),
  );
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit));
    return Promise.reject(Cause.squash(exit.cause));
  }
  return { ...exit.value, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};
