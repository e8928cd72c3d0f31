/**
 * The exposition of the operator's metrics (edge code), rendered by `prom-client`: the Effect
 * metrics of the context's metric registry (the operator's, the watcher's, the client's, the
 * engines' and any the application records itself) next to prom-client's standard Node process
 * metrics (CPU, memory, event-loop lag, GC, handles). prom-client writes the Prometheus text
 * format and OpenMetrics, HELP and TYPE lines included, so no encoder of our own exists.
 *
 * Every Effect counter, gauge and histogram whose name is a valid Prometheus name is exported;
 * its description is the HELP text. Frequencies and summaries are not exported.
 *
 * prom-client (and the OpenTelemetry API and the tree library it pulls in, ~80 modules) is
 * imported when an exposition is made, so an operator without a metrics endpoint loads none of it.
 */
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import type * as Prom from "prom-client";
import type { Format } from "../MetricsEndpoint.ts";

type Snapshot = Metric.Metric.Snapshot;
type Sample = { value: number; labels: Record<string, string | number>; metricName?: string };

const VALID_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

const number = (value: number | bigint): number => (typeof value === "bigint" ? Number(value) : value);

/** The samples of one Effect metric's series, in prom-client's shape. */
const samplesOf = (name: string, snapshots: ReadonlyArray<Snapshot>): Array<Sample> =>
  snapshots.flatMap((snapshot): Array<Sample> => {
    const labels = { ...snapshot.attributes };
    switch (snapshot.type) {
      case "Counter":
        return [{ value: number(snapshot.state.count), labels }];
      case "Gauge":
        return [{ value: number(snapshot.state.value), labels }];
      case "Histogram": {
        const buckets = snapshot.state.buckets.map(
          ([le, count]): Sample => ({
            metricName: `${name}_bucket`,
            labels: { ...labels, le: le === Number.POSITIVE_INFINITY ? "+Inf" : String(le) },
            value: count,
          }),
        );
        const hasInf = snapshot.state.buckets.some(([le]) => le === Number.POSITIVE_INFINITY);
        const inf: Array<Sample> = hasInf
          ? []
          : [
              {
                metricName: `${name}_bucket`,
                labels: { ...labels, le: "+Inf" },
                value: snapshot.state.count,
              },
            ];
        return [
          ...buckets,
          ...inf,
          { metricName: `${name}_sum`, labels, value: snapshot.state.sum },
          { metricName: `${name}_count`, labels, value: snapshot.state.count },
        ];
      }
      default:
        return [];
    }
  });

/** The latest snapshot of the Effect metrics, by metric name. */
interface Latest {
  current: ReadonlyMap<string, ReadonlyArray<Snapshot>>;
}

/** What prom-client's registry renders of one metric: its HELP, TYPE and samples. */
interface Rendered {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge" | "histogram";
  readonly aggregator: "sum";
  readonly values: Array<Sample>;
}

/**
 * A prom-client metric class whose rendering comes from the Effect metrics instead of its own
 * recording: prom-client still writes the HELP and TYPE lines and the samples.
 */
const bridgedClass = <B extends new (...args: any[]) => object>(Base: B) =>
  class extends Base {
    render: () => Rendered = () => ({ name: "", help: "", type: "gauge", aggregator: "sum", values: [] });
    async get() {
      return this.render();
    }
    /** What prom-client's registry renders histograms from. */
    async getForPromString() {
      return this.render();
    }
  };

/** The bridged classes of the loaded prom-client module. */
const bridgedClasses = (prom: typeof Prom) =>
  ({
    Counter: bridgedClass(prom.Counter),
    Gauge: bridgedClass(prom.Gauge),
    Histogram: bridgedClass(prom.Histogram),
  }) as const;

/** Renders the metrics of an Effect context in either format. */
export interface Exposition {
  readonly render: (format: Format) => Effect.Effect<string>;
}

const registryOf = (prom: typeof Prom, format: Format): Prom.Registry<Prom.RegistryContentType> => {
  const registry = new prom.Registry<Prom.RegistryContentType>();
  registry.setContentType(
    format === "openmetrics" ? prom.Registry.OPENMETRICS_CONTENT_TYPE : prom.Registry.PROMETHEUS_CONTENT_TYPE,
  );
  prom.collectDefaultMetrics({ register: registry });
  return registry;
};

/**
 * Creates the exposition of the current context's metrics (the registries are created once;
 * each rendering takes a fresh snapshot of the Effect metrics).
 *
 * @example
 * ```ts
 * const exposition = yield* Exposition.make
 * const text = yield* exposition.render("prometheus") // "# HELP kopf_handler_invocations_total ..."
 * ```
 */
export const make: Effect.Effect<Exposition> = Effect.map(
  Effect.promise(() => import("prom-client")),
  (prom) => exposition(prom),
);

const exposition = (prom: typeof Prom): Exposition => {
  const Bridged = bridgedClasses(prom);
  const registries = new Map<Format, Prom.Registry<Prom.RegistryContentType>>();
  const latest: Latest = { current: new Map() };
  const bridged = new Map<Format, Set<string>>();

  const bridge = (format: Format, registry: Prom.Registry<Prom.RegistryContentType>) => {
    const known = bridged.get(format) ?? new Set<string>();
    bridged.set(format, known);
    for (const [id, snapshots] of latest.current) {
      const first = snapshots[0];
      // Names prom-client's own process metrics use are left to them.
      if (known.has(id) || first === undefined || registry.getSingleMetric(id) !== undefined) continue;
      if (first.type !== "Counter" && first.type !== "Gauge" && first.type !== "Histogram") continue;
      const help = first.description ?? id;
      const type = first.type === "Counter" ? "counter" : first.type === "Gauge" ? "gauge" : "histogram";
      // OpenMetrics names a counter's family without `_total` (prom-client renames it so, too).
      const name = format === "openmetrics" && type === "counter" ? id.replace(/_total$/, "") : id;
      const metric = new Bridged[first.type]({ name: id, help, registers: [registry] });
      metric.render = () => ({
        name,
        help,
        type,
        aggregator: "sum",
        values: samplesOf(id, latest.current.get(id) ?? []),
      });
      known.add(id);
    }
  };

  return {
    render: (format) =>
      Effect.gen(function* () {
        const snapshots = yield* Metric.snapshot;
        const byName = new Map<string, Array<Snapshot>>();
        for (const snapshot of snapshots) {
          if (!VALID_NAME.test(snapshot.id)) continue;
          const list = byName.get(snapshot.id) ?? [];
          list.push(snapshot);
          byName.set(snapshot.id, list);
        }
        latest.current = byName;
        let registry = registries.get(format);
        if (registry === undefined) {
          registry = registryOf(prom, format);
          registries.set(format, registry);
        }
        bridge(format, registry);
        const rendering = registry;
        return yield* Effect.promise(() => rendering.metrics());
      }),
  };
};
