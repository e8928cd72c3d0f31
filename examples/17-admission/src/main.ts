/**
 * Runs example 17 against the current cluster (kubeconfig): the operator and its admission
 * webhooks together (`Admission.operate`), until Ctrl+C. The runtime has no seam for admission
 * yet, so `kopf run` alone would not start the webhook server.
 */
import { Admission } from "@kopf/admission";
import { KubeClient } from "@kopf/client";
import { Signals } from "@kopf/runtime";
import { Effect } from "effect";
import * as kopf from "kopf";
import { admission } from "./handlers.ts";

/** The operator with its webhooks, serving the `default` namespace. */
export const program = Admission.operate({
  registry: kopf.getDefaultRegistry(),
  namespaces: ["default"],
  settings: { admission: admission({ cadump: "ca.pem" }) },
});

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await Signals.stopOnSignals(program).pipe(
    Effect.provide(KubeClient.layer()),
    Effect.runPromise,
  );
}
