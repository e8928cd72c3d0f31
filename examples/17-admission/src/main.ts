/**
 * Runs example 17 against the current cluster (kubeconfig) until Ctrl+C: the operator with its
 * admission webhooks (started because the handlers include validating and mutating ones; the
 * startup handler configures the server). The same as `kopf run -n default src/handlers.ts`.
 */
import * as kopf from "kopf";
import "./handlers.ts";

if (import.meta.url === `file://${process.argv[1]}`) {
  await kopf.run({ namespaces: ["default"] });
}
