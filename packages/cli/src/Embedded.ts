/**
 * `kopf run --emulator FILE`: the development loop's cluster. A fresh Kubernetes API emulator is
 * served over HTTPS inside the operator's process, the given YAML files (CRDs, then objects) are
 * applied to it, and its kubeconfig is written where `kubectl` can use it. The emulator and the
 * cluster helpers come from `@kopf/emulator` and `@kopf/testing`, development dependencies: this
 * module is imported only when the flag is given, so a production `kopf run` never loads them.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { KubeApi } from "@kopf/client";
import { EmulatorCommand, EmulatorServer } from "@kopf/emulator";
import { Applying, Clusters } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";

/** A running embedded emulator: the operator's cluster, and how to stop it. */
export interface Embedded {
  readonly kubeApi: Layer.Layer<KubeApi>;
  /** The HTTPS address it serves. */
  readonly url: string;
  readonly close: () => Promise<void>;
}

/**
 * Starts the emulator, writes its kubeconfig to `kubeconfig`, applies each file in order. On a
 * failure (a port, a file, an object the emulator refuses) the emulator is stopped again.
 *
 * @example
 * ```ts
 * const embedded = yield* Embedded.start(["crd.yaml", "example.yaml"], ".kopf/kubeconfig")
 * // run the operator with embedded.kubeApi; then: await embedded.close()
 * ```
 */
export const start = (files: ReadonlyArray<string>, kubeconfig: string): Effect.Effect<Embedded, unknown> =>
  Effect.suspend(() => {
    const scope = Scope.makeUnsafe();
    const stop = Scope.close(scope, Exit.void);
    return Effect.gen(function* () {
      const context = yield* Layer.buildWithScope(Clusters.https(), scope);
      const server = Context.get(context, EmulatorServer);
      yield* Effect.tryPromise(() => mkdir(dirname(kubeconfig), { recursive: true }));
      yield* server.writeKubeconfig(kubeconfig);
      for (const file of files) {
        const objects = yield* EmulatorCommand.readObjects(file);
        yield* Applying.apply(objects).pipe(Effect.provide(context));
      }
      const embedded: Embedded = {
        kubeApi: Layer.succeedContext(context),
        url: server.url,
        close: () => Effect.runPromise(stop),
      };
      return embedded;
    }).pipe(Effect.onError(() => stop));
  });
