/** docs/guide/observability.md: configuring logs, serving metrics, a handler's own span. */
import { Effect } from "effect";
import * as kopf from "kopf";

// block: logs
kopf.configure({ format: "json", refkey: "k8s_object", level: "Debug" });

// block: metrics
export async function serveMetrics(): Promise<void> {
  await kopf.run({ namespaces: ["default"], metricsEndpoint: "http://0.0.0.0:9090/metrics" });
}

// block: traced handler
kopf.on.create("kopfexamples", function provision({ name }) {
  return Effect.log(`Provisioning ${name}`).pipe(Effect.withSpan("provision the database"));
});
