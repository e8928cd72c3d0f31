/** docs/guide/embedding.md: the Effect API (`Operating.run`, `Operator.start`, `Operator.layer`). */
import { KubeClient } from "@kopf/client";
import { Operating } from "@kopf/engines";
import { Logging, Operator, Signals } from "@kopf/runtime";
import { Settings } from "@kopf/settings";
import { Clusters } from "@kopf/testing";
import { Effect, Layer } from "effect";
import * as kopf from "kopf";

// block: run
const registry = kopf.Registry.make();
registry.on.create("kopfexamples", function create_fn({ logger }) {
  logger.info("created");
});

const logging = Logging.layer({ format: "full", write: (line) => process.stderr.write(`${line}\n`) });
const cluster = Layer.provide(KubeClient.layer(), logging); // the client logs through it too
const operator = Operating.run({ registry, namespaces: ["default"] }).pipe(
  Effect.provide(Layer.mergeAll(cluster, Settings.layer({ posting: { level: "Warn" } }))),
);

export async function main(): Promise<void> {
  const program = Signals.stopOnSignals(operator).pipe(Effect.provide(logging));
  process.exitCode = await Effect.runPromise(program); // 0 after SIGTERM/SIGINT
}

// block: start
export const application = Effect.gen(function* () {
  const running = yield* Operator.start({ registry, namespaces: ["default"] });
  yield* running.ready; // startup handlers done, watching begins
  yield* Effect.logInfo("the application's own work goes here");
  yield* running.stop; // graceful: running handlers finish, cleanup handlers run
}).pipe(Effect.scoped, Effect.provide(Clusters.inProcess()));

// block: layer
export const OperatorLive = Operator.layer({ registry, clusterwide: true }).pipe(
  Layer.provide(KubeClient.layer({ kubeconfig: { context: "kind-kind" } })),
);
