/**
 * The Grafana dashboard and the Prometheus alert rules under `deploy/`: every expression parses
 * with Prometheus's own PromQL grammar (`@prometheus-io/lezer-promql`) and names only metrics
 * the operator exports — the metric families its metrics endpoint renders (every Effect metric
 * of the runtime, the client, the watcher, the engines and admission, plus prom-client's
 * process metrics), with the `_bucket`/`_sum`/`_count` series of histograms.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, describe, it } from "@effect/vitest";
import { AdmissionMetrics } from "@kopf/admission";
import { ApiMetrics } from "@kopf/client";
import { EngineMetrics, Exposition } from "@kopf/engines";
import { Metrics } from "@kopf/runtime";
import { WatchMetrics } from "@kopf/watcher";
import { parser } from "@prometheus-io/lezer-promql";
import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import { parse as parseYaml } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** Every series name the endpoint renders once each metric has a value. */
const exported = Effect.gen(function* () {
  const modules: ReadonlyArray<object> = [Metrics, ApiMetrics, WatchMetrics, EngineMetrics, AdmissionMetrics];
  for (const module of modules) {
    for (const value of Object.values(module)) {
      if (Metric.isMetric(value)) yield* Metric.update(value as Metric.Metric<number, unknown>, 0);
    }
  }
  const exposition = yield* Exposition.make;
  const text = yield* exposition.render("prometheus");
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (name === undefined) continue;
    names.add(name);
    if (type === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
    if (type === "summary") for (const suffix of ["_sum", "_count"]) names.add(`${name}${suffix}`);
  }
  return names;
}).pipe(Effect.provideService(Metric.MetricRegistry, new Map()));

/** The metric names an expression selects; fails on a syntax error. */
const selected = (expression: string): ReadonlyArray<string> => {
  // Grafana's variables, as Grafana substitutes them.
  const promql = expression.replaceAll("$__rate_interval", "5m").replaceAll("$job", ".*");
  const names: Array<string> = [];
  parser.parse(promql).iterate({
    enter: (node) => {
      assert.isFalse(node.type.isError, `syntax error at ${node.from} in: ${promql}`);
      if (node.name === "VectorSelector") {
        const identifier = node.node.getChild("Identifier");
        if (identifier !== null) names.push(promql.slice(identifier.from, identifier.to));
      }
    },
  });
  return names;
};

interface Dashboard {
  readonly panels: ReadonlyArray<{
    readonly title: string;
    readonly targets?: ReadonlyArray<{ readonly expr: string }>;
  }>;
  readonly templating: { readonly list: ReadonlyArray<{ readonly definition?: string }> };
}
interface Rules {
  readonly groups: ReadonlyArray<{
    readonly rules: ReadonlyArray<{ readonly alert: string; readonly expr: string }>;
  }>;
}

const dashboard = JSON.parse(read("deploy/grafana/kopf-dashboard.json")) as Dashboard;
const rules = parseYaml(read("deploy/prometheus/kopf-alerts.yaml")) as Rules;

const expressions: ReadonlyArray<readonly [string, string]> = [
  ...dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => [`panel "${panel.title}"`, target.expr] as const),
  ),
  ...dashboard.templating.list.flatMap((variable) =>
    variable.definition === undefined
      ? []
      : [["a variable", variable.definition.replace(/^label_values\((\w+), \w+\)$/, "$1")] as const],
  ),
  ...rules.groups.flatMap((group) => group.rules.map((rule) => [`alert ${rule.alert}`, rule.expr] as const)),
];

describe("deploy/", () => {
  it("has the alerts the operator's users need", () => {
    const alerts = rules.groups.flatMap((group) => group.rules.map((rule) => rule.alert));
    for (const alert of [
      "KopfHandlerFailureRate",
      "KopfStuckFinalizers",
      "KopfWatchStale",
      "KopfQueueGrowing",
    ]) {
      assert.include(alerts, alert);
    }
  });

  it.effect("names only metrics the operator exports, in valid PromQL", () =>
    Effect.gen(function* () {
      const names = yield* exported;
      assert.isTrue(names.has("kopf_handler_invocations_total"));
      assert.isTrue(names.has("process_cpu_seconds_total"));
      assert.isAbove(expressions.length, 30);
      for (const [where, expression] of expressions) {
        const used = selected(expression);
        assert.isAbove(used.length, 0, `${where} selects no metric: ${expression}`);
        for (const name of used)
          assert.isTrue(names.has(name), `${where} uses ${name}, which is not exported`);
      }
    }),
  );
});
