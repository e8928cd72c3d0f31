/** docs/guide/observability.md: reading the operator's metrics, and configuring logs. */
import { Effect, Metric } from "effect";
import * as kopf from "kopf";

// block: logs
kopf.configure({ format: "json", refkey: "k8s_object", level: "Debug" });

// block: metrics
/** The operator's metrics as `name{attributes} value` lines. */
export const metricLines = (): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(
    Effect.map(Metric.snapshot, (snapshots) =>
      snapshots
        .filter((snapshot) => snapshot.id.startsWith("kopf_"))
        .map((snapshot) => {
          const labels = Object.entries(snapshot.attributes ?? {}).map(([k, v]) => `${k}="${v}"`);
          const state = snapshot.state as { readonly count?: number; readonly value?: number };
          return `${snapshot.id}{${labels.join(",")}} ${state.count ?? state.value}`;
        }),
    ),
  );
