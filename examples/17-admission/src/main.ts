/**
 * Runs example 17 against the current cluster (kubeconfig): the operator and its admission
 * webhooks side by side, until Ctrl+C. The runtime has no seam for admission yet, so the two
 * run together here; `kopf run` alone would not start the webhook server.
 */
import { Admission } from "@kopf/admission";
import { KubeClient } from "@kopf/client";
import { Operator, Signals } from "@kopf/runtime";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Deferred, Effect } from "effect";
import * as kopf from "kopf";
import { admission } from "./handlers.ts";

export const program = Effect.gen(function* () {
  const registry = kopf.getDefaultRegistry();
  const settings = yield* Settings.makeEffect({ admission: admission({ cadump: "ca.pem" }) });
  const ready = yield* Deferred.make<void>();
  yield* Effect.all(
    [
      Operator.run({ registry, namespaces: ["default"], ready }),
      Admission.run({ registry, ready: Deferred.await(ready) }).pipe(
        Effect.provideService(OperatorSettings, settings),
      ),
    ],
    { concurrency: "unbounded", discard: true },
  );
});

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await Effect.runPromise(
    Signals.stopOnSignals(program).pipe(Effect.provide(KubeClient.layer())),
  );
  process.exitCode = code;
}
