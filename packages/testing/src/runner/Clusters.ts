/**
 * The clusters a `KopfRunner` can run an operator against: a fresh in-process emulator (no
 * sockets), the emulator's HTTPS server reached through the live client (so
 * kubernetes-fluent-client's `K8s()` in handlers reaches it too), any cluster a kubeconfig
 * reaches, or any cluster given as a `KubeApi` layer. {@link selected} (the runner's default)
 * takes the cluster from `KOPF_TEST_CLUSTER`, so the same tests run on the emulator, on the
 * real-cluster tier and on kind/k3d/minikube.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CredentialsVault, KfcBridge, type KubeApi, KubeClient, type KubeTransport } from "@kopf/client";
import {
  type EmulatorOptions,
  EmulatorServer,
  EmulatorTransport,
  FaultInjector,
  KubeEmulator,
} from "@kopf/emulator";
import * as Config from "effect/Config";
import * as ConfigProvider from "effect/ConfigProvider";
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Result from "effect/Result";
import * as Scope from "effect/Scope";
import * as ClusterTarget from "./ClusterTarget.ts";

/** A cluster: at least a `KubeApi`; the emulator's clusters also give the `KubeEmulator`. */
export type Cluster = Layer.Layer<KubeApi, unknown>;

/** What the emulator's clusters provide. */
export type EmulatorServices = KubeApi | CredentialsVault | KubeTransport | KubeEmulator | FaultInjector;

/**
 * A fresh in-process emulator with a client over it (with the emulator's options, e.g.
 * `{ featureGates: { ShardedListAndWatch: true } }`).
 *
 * @example
 * ```ts
 * await using runner = await KopfRunner.start({ registry, cluster: Clusters.inProcess() })
 * ```
 */
export const inProcess = (options: EmulatorOptions = {}): Layer.Layer<EmulatorServices> =>
  EmulatorTransport.client().pipe(
    Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(options), FaultInjector.layer)),
  );

const kubeconfigFile = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "kopf-runner-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true })),
).pipe(Effect.map((dir) => join(dir, "kubeconfig")));

/**
 * A fresh emulator served over HTTPS, the operator's client logging in with its kubeconfig as
 * with any cluster, and kubernetes-fluent-client given the operator's credentials (through
 * `KfcBridge`) while it runs, so kubernetes-fluent-client reaches the same emulator.
 *
 * @example
 * ```ts
 * await using runner = await KopfRunner.start({ args: ["run", "-n", "default", "handlers.ts"], cli: Cli.main, cluster: Clusters.https() })
 * ```
 */
export const https = (): Layer.Layer<EmulatorServices | EmulatorServer | KfcBridge.KfcBridge, unknown> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const server = yield* EmulatorServer;
      const path = yield* kubeconfigFile;
      yield* server.writeKubeconfig(path);
      const client = KubeClient.layer({ kubeconfig: { paths: path } });
      return Layer.provideMerge(KfcBridge.layer(), client);
    }),
  ).pipe(
    Layer.provideMerge(EmulatorServer.layer({ port: 0, tls: true })),
    Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
  );

/**
 * Any cluster a kubeconfig file reaches (kind, k3d, minikube, the real-cluster tier's API
 * server), logging in as `kopf run --kubeconfig` does, with kubernetes-fluent-client given the
 * same credentials (through `KfcBridge`) while it runs, so its `K8s()` reaches it too.
 *
 * @example
 * ```ts
 * await using runner = await KopfRunner.start({ registry, cluster: Clusters.kubeconfig("/home/me/.kube/config") })
 * ```
 */
export const kubeconfig = (
  path: string,
  options: { readonly context?: string | undefined } = {},
): Layer.Layer<KubeApi | CredentialsVault | KubeTransport | KfcBridge.KfcBridge, unknown> =>
  Layer.provideMerge(
    KfcBridge.layer(),
    KubeClient.layer({ kubeconfig: { paths: path, context: options.context } }),
  );

/**
 * `KOPF_TEST_CLUSTER` read through Effect's `Config` from an environment `ConfigProvider`: the
 * process environment as it is at the call (the real tier points the variable at a new control
 * plane per test file, so the default provider's snapshot would not do), or `env` where a caller
 * (a test) passes its own.
 */
const targetText = (env: Readonly<Record<string, string | undefined>> | undefined): string | undefined => {
  const given =
    env === undefined
      ? undefined
      : {
          env: Object.fromEntries(
            Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
          ),
        };
  return Effect.runSync(
    Config.option(Config.String(ClusterTarget.ENV_VAR)).pipe(
      Effect.map(Option.getOrUndefined),
      Effect.orElseSucceed(() => undefined),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv(given))),
    ),
  );
};

/**
 * The cluster `KOPF_TEST_CLUSTER` names (see {@link ClusterTarget}): the emulator when it is
 * unset or `emulator` (`options.emulator`, default {@link inProcess}), or `kubeconfig:PATH`.
 * `real` is resolved by the real-cluster tier (`npm run test:real`), which starts the API server
 * for each test file and sets `kubeconfig:PATH` itself; here it fails with that advice, as does
 * any value that is not a cluster.
 *
 * @example
 * ```ts
 * // KOPF_TEST_CLUSTER=kubeconfig:$HOME/.kube/config npx vitest run
 * await using runner = await KopfRunner.start({ args, cli: Cli.main, cluster: Clusters.selected({ emulator: Clusters.https }) })
 * ```
 */
export const selected = (
  options: {
    readonly emulator?: (() => Cluster) | undefined;
    readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  } = {},
): Cluster => {
  const failing = (error: ClusterTarget.TargetError): Cluster =>
    Layer.effectDiscard(Effect.fail(error)) as unknown as Cluster;
  const target = ClusterTarget.parse(targetText(options.env));
  if (Result.isFailure(target)) return failing(target.failure);
  switch (target.success._tag) {
    case "Emulator":
      return (options.emulator ?? inProcess)();
    case "Kubeconfig":
      return kubeconfig(target.success.path);
    case "Real":
      return failing(
        new ClusterTarget.TargetError({
          reason: "Unresolved",
          message:
            `${ClusterTarget.ENV_VAR}=real is resolved by the real-cluster tier (npm run test:real), which starts ` +
            "the API server for each test file; to use a running one, set kubeconfig:PATH " +
            "(PATH from scripts/real-apiserver.sh start)",
        }),
      );
  }
};

/**
 * Whether `KOPF_TEST_CLUSTER` names the emulator (unset, or `emulator`): for fixtures that set up
 * differently there (e.g. virtual time only where nothing real has to happen); a value that is
 * not a cluster is not the emulator.
 *
 * @example
 * ```ts
 * const settle = Clusters.isEmulator() ? virtualSettle : realSettle
 * ```
 */
export const isEmulator = (env?: Readonly<Record<string, string | undefined>>): boolean => {
  const target = ClusterTarget.parse(targetText(env));
  return Result.isSuccess(target) && target.success._tag === "Emulator";
};

/** A cluster built once, shared by several runners (e.g. to restart an operator on the same data). */
export interface Built extends AsyncDisposable {
  readonly context: Context.Context<KubeApi>;
  /** Tears the cluster down (stops the emulator). */
  close(): Promise<void>;
}

/**
 * Builds a cluster for sharing: runners given it use it without tearing it down.
 *
 * @example
 * ```ts
 * await using cluster = await Clusters.build(Clusters.inProcess())
 * const first = await KopfRunner.start({ registry, cluster })
 * await first.stop()
 * const second = await KopfRunner.start({ registry, cluster }) // same objects, a new operator
 * ```
 */
export const build = async (layer: Cluster): Promise<Built> => {
  const scope = Scope.makeUnsafe();
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope)).catch(
    async (error: unknown) => {
      await Effect.runPromise(Scope.close(scope, Exit.void));
      throw error;
    },
  );
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void));
  return { context: context as Context.Context<KubeApi>, close, [Symbol.asyncDispose]: close };
};

/** Whether a cluster is a built one. */
export const isBuilt = (cluster: Cluster | Built): cluster is Built =>
  typeof cluster === "object" && cluster !== null && "context" in cluster && "close" in cluster;
