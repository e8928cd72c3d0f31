/**
 * Runs example 18 against the current cluster (kubeconfig) until Ctrl+C. The same as
 * `kopf run -n default src/handlers.ts`; apply the CRD first with
 * `kopf crd src/resources.ts --conversion-url https://HOST:PORT/convert/{group}/{plural} --ca-bundle ... | kubectl apply -f -`.
 */
import * as kopf from "kopf";
import "./handlers.ts";

if (import.meta.url === `file://${process.argv[1]}`) {
  await kopf.run({ namespaces: ["default"] });
}
