/**
 * The exposition of the operator's metrics (edge code), rendered by `prom-client`: the Effect
 * metrics of the context's metric registry (the operator's, the watcher's, the client's, the
 * engines' and any the application records itself) next to prom-client's standard Node process
 * metrics (CPU, memory, event-loop lag, GC, handles). prom-client writes the Prometheus text
 * format and OpenMetrics, HELP and TYPE lines included, so no encoder of our own exists.
 *
 * Every Effect counter, gauge and histogram whose name is a valid Prometheus name is exported;
 * its description is the HELP text. Frequencies and summaries are not exported.
 */
import { Effect, Metric } from "effect";
import * as Prom from "prom-client";
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

/** How a bridged metric finds its samples at rendering time. */
type Source = () => Array<Sample>;

/** A prom-client counter whose samples are the Effect counter's series. */
class EffectCounter extends Prom.Counter<string> {
  readonly source: Source;
  constructor(name: string, help: string, registry: Prom.Registry<Prom.RegistryContentType>, source: Source) {
    super({ name, help, registers: [registry] });
    this.source = source;
  }
  override async get() {
    return { ...(await super.get()), values: this.source() };
  }
}

/** A prom-client gauge whose samples are the Effect gauge's series. */
class EffectGauge extends Prom.Gauge<string> {
  readonly source: Source;
  constructor(name: string, help: string, registry: Prom.Registry<Prom.RegistryContentType>, source: Source) {
    super({ name, help, registers: [registry] });
    this.source = source;
  }
  override async get() {
    return { ...(await super.get()), values: this.source() };
  }
}

/** A prom-client histogram whose buckets, sum and count are the Effect histogram's series. */
class EffectHistogram extends Prom.Histogram<string> {
  readonly source: Source;
  constructor(name: string, help: string, registry: Prom.Registry<Prom.RegistryContentType>, source: Source) {
    super({ name, help, registers: [registry] });
    this.source = source;
  }
  override async get() {
    return { ...(await super.get()), values: this.source() };
  }
  /** What prom-client's registry renders histograms from. */
  async getForPromString() {
    return this.get();
  }
}

/** Renders the metrics of an Effect context in either format. */
export interface Exposition {
  readonly render: (format: Format) => Effect.Effect<string>;
}

const registryOf = (format: Format): Prom.Registry<Prom.RegistryContentType> => {
  const registry = new Prom.Registry<Prom.RegistryContentType>();
  registry.setContentType(
    format === "openmetrics" ? Prom.Registry.OPENMETRICS_CONTENT_TYPE : Prom.Registry.PROMETHEUS_CONTENT_TYPE,
  );
  Prom.collectDefaultMetrics({ register: registry });
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
export const make: Effect.Effect<Exposition> = Effect.sync(() => {
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
      const help = first.description ?? id;
      const source: Source = () => samplesOf(id, latest.current.get(id) ?? []);
      if (first.type === "Counter") new EffectCounter(id, help, registry, source);
      else if (first.type === "Gauge") new EffectGauge(id, help, registry, source);
      else if (first.type === "Histogram") new EffectHistogram(id, help, registry, source);
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
          registry = registryOf(format);
          registries.set(format, registry);
        }
        bridge(format, registry);
        const rendering = registry;
        return yield* Effect.promise(() => rendering.metrics());
      }),
  };
});
