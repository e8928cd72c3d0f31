/**
 * The options of `kopf run`: flags, their KOPF_RUN_* environment fallbacks, Kopf's defaults, the
 * -n/-A exclusivity, --dev's priority, and the rejection of bad values with a message naming them.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import fc from "fast-check";
import * as RunArgs from "../src/RunArgs.ts";

const ok = (args: RunArgs.ParsedRunArgs, env: Record<string, string> = {}) => {
  const result = RunArgs.plan(args, env);
  if (Result.isFailure(result)) assert.fail(result.failure.message);
  return result.success;
};

const failure = (args: RunArgs.ParsedRunArgs, env: Record<string, string> = {}) => {
  const result = RunArgs.plan(args, env);
  if (Result.isSuccess(result)) assert.fail("expected a failure");
  return result.failure;
};

describe("RunArgs.plan", () => {
  it("applies Kopf's defaults: cluster-wide with a warning, full format, INFO", () => {
    const plan = ok({ paths: ["handlers.ts"] });
    assert.deepStrictEqual(plan.paths, ["handlers.ts"]);
    assert.isTrue(plan.clusterwide);
    assert.isTrue(plan.implicitClusterwide);
    assert.deepStrictEqual(plan.logging, {
      format: "full",
      prefix: undefined,
      refkey: undefined,
      level: "Info",
      debug: false,
    });
    assert.strictEqual(plan.priority, undefined);
    assert.strictEqual(plan.standalone, undefined);
  });

  it.each([
    [{ namespace: ["ns1", "ns2"] }, {}, ["ns1", "ns2"]],
    [{}, { KOPF_RUN_NAMESPACES: "ns1  ns2" }, ["ns1", "ns2"]],
    [{}, { KOPF_RUN_NAMESPACE: "legacy" }, ["legacy"]],
    [{}, { KOPF_RUN_NAMESPACES: "a", KOPF_RUN_NAMESPACE: "b" }, ["a", "b"]],
    [{ namespace: ["cli"] }, { KOPF_RUN_NAMESPACES: "env" }, ["cli"]],
  ] as const)("serves namespaces %j with env %j as %j", (args, env, expected) => {
    const plan = ok({ paths: ["h.ts"], ...args }, env);
    assert.deepStrictEqual(plan.namespaces, expected);
    assert.isFalse(plan.clusterwide);
  });

  it.each([
    [{ "all-namespaces": true, namespace: ["ns1"] }, {}],
    [{ "all-namespaces": true }, { KOPF_RUN_NAMESPACES: "ns1" }],
    [{ namespace: ["ns1"] }, { KOPF_RUN_ALL_NAMESPACES: "true" }],
  ] as const)("refuses -n with -A (%j, %j)", (args, env) => {
    const error = failure({ paths: ["h.ts"], ...args }, env);
    assert.strictEqual(error.reason, "MutuallyExclusive");
    assert.include(error.message, "--all-namespaces");
  });

  it.each([
    [{ "leader-election": true }, {}, "leader-election"],
    [{ sharding: true, "lease-name": "ring", "lease-namespace": "ops" }, {}, "sharding"],
    [{}, { KOPF_RUN_SHARDING: "true", KOPF_RUN_LEASE_NAME: "ring" }, "sharding"],
  ] as const)("scales out with %j / %j as %s", (args, env, mode) => {
    const plan = ok({ paths: ["h.ts"], ...args }, env);
    assert.strictEqual(plan.overrides.scaling?.mode, mode);
    if (mode === "sharding") assert.strictEqual(plan.leaseName, "ring");
  });

  it.each([
    [{ sharding: true, "shard-watch": "own-shards" }, {}, "own-shards"],
    [{ sharding: true }, { KOPF_RUN_SHARD_WATCH: "all" }, "all"],
    [{ sharding: true }, {}, undefined],
  ] as const)("takes what a shard watches from %j / %j: %s", (args, env, watch) => {
    const plan = ok({ paths: ["h.ts"], ...args }, env);
    assert.strictEqual(plan.shardWatch, watch);
    assert.strictEqual(plan.overrides.scaling?.watch, watch);
  });

  it("refuses --leader-election with --sharding", () => {
    const error = failure({ paths: ["h.ts"], "leader-election": true, sharding: true });
    assert.strictEqual(error.reason, "MutuallyExclusive");
    assert.include(error.message, "--sharding");
  });

  it("serves the cluster explicitly with -A", () => {
    const plan = ok({ paths: ["h.ts"], "all-namespaces": true });
    assert.isTrue(plan.clusterwide);
    assert.isFalse(plan.implicitClusterwide);
    assert.strictEqual((plan.overrides.peering as { clusterwide?: boolean }).clusterwide, true);
  });

  it.each([
    [{ dev: true }, {}, 666],
    [{ dev: true, priority: 5 }, {}, 666],
    [{ priority: 5 }, {}, 5],
    [{}, { KOPF_RUN_PRIORITY: "7" }, 7],
    [{}, { KOPF_RUN_DEV: "yes" }, 666],
  ] as const)("takes the priority from %j / %j as %d", (args, env, expected) => {
    assert.strictEqual(ok({ paths: ["h.ts"], ...args }, env).priority, expected);
  });

  it("makes peering mandatory with a peering name, from a flag or the environment", () => {
    assert.deepStrictEqual(ok({ paths: ["h.ts"], peering: "team" }).overrides.peering, {
      clusterwide: true,
      mandatory: true,
      name: "team",
    });
    assert.strictEqual(ok({ paths: ["h.ts"] }, { KOPF_RUN_PEERING: "env-team" }).peeringName, "env-team");
  });

  it.each([
    [{ verbose: true }, {}, "Debug"],
    [{ debug: true }, {}, "Debug"],
    [{ quiet: true }, {}, "Warn"],
    [{}, { KOPF_RUN_VERBOSE: "true" }, "Debug"],
    [{}, { KOPF_RUN_QUIET: "1" }, "Warn"],
    [{ verbose: false }, { KOPF_RUN_VERBOSE: "true" }, "Info"],
  ] as const)("logs at the level of %j / %j: %s", (args, env, level) => {
    assert.strictEqual(ok({ paths: ["h.ts"], ...args }, env).logging.level, level);
  });

  it("reads the log format, prefix and refkey from flags or the environment", () => {
    const plan = ok(
      { paths: ["h.ts"], "log-format": "json", "log-refkey": "k8s" },
      { KOPF_RUN_LOG_PREFIX: "false" },
    );
    assert.deepStrictEqual(plan.logging, {
      format: "json",
      prefix: false,
      refkey: "k8s",
      level: "Info",
      debug: false,
    });
  });

  it("takes the metrics endpoint from --metrics or KOPF_RUN_METRICS", () => {
    assert.strictEqual(
      ok({ paths: ["h.ts"], metrics: "http://0.0.0.0:9090/metrics" }).metrics,
      "http://0.0.0.0:9090/metrics",
    );
    assert.strictEqual(ok({ paths: ["h.ts"] }, { KOPF_RUN_METRICS: "http://:9/m" }).metrics, "http://:9/m");
    assert.isUndefined(ok({ paths: ["h.ts"] }).metrics);
  });

  it("takes the kubeconfig and context", () => {
    const plan = ok({ paths: ["h.ts"], kubeconfig: "/tmp/kc", context: "kind" });
    assert.strictEqual(plan.kubeconfig, "/tmp/kc");
    assert.strictEqual(plan.context, "kind");
    assert.strictEqual(ok({ paths: ["h.ts"] }, { KOPF_RUN_CONTEXT: "env" }).context, "env");
  });

  it.each([
    [{ paths: ["h.ts"], "log-format": "xml" }, {}, "--log-format"],
    [{ paths: ["h.ts"] }, { KOPF_RUN_LOG_FORMAT: "xml" }, "--log-format"],
    [{ paths: ["h.ts"], "shard-watch": "mine" }, {}, "--shard-watch must be one of auto, own-shards, all"],
    [{ paths: ["h.ts"] }, { KOPF_RUN_PRIORITY: "high" }, "--priority"],
    [{ paths: ["h.ts"], priority: 1.5 }, {}, "--priority"],
    [{ paths: ["h.ts"] }, { KOPF_RUN_STANDALONE: "maybe" }, "KOPF_RUN_STANDALONE=maybe"],
    [{ paths: ["h.ts"], liveness: "https://0.0.0.0:8080/healthz" }, {}, "Unsupported scheme of --liveness"],
    [{ paths: ["h.ts"], metrics: "https://0.0.0.0:9090/metrics" }, {}, "Unsupported scheme of --metrics"],
    [{ paths: ["h.ts"] }, { KOPF_RUN_METRICS: "ftp://x/metrics" }, "Unsupported scheme of --metrics"],
    [{}, {}, "Nothing to run"],
  ] as const)("rejects %j / %j naming %s", (args, env, named) => {
    assert.include(failure(args, env).message, named);
  });

  it("loads modules from -m or KOPF_RUN_MODULES", () => {
    assert.deepStrictEqual(ok({ module: ["my-op"] }).modules, ["my-op"]);
    assert.deepStrictEqual(ok({}, { KOPF_RUN_MODULES: "a b" }).modules, ["a", "b"]);
  });

  it("property: the command line wins over the environment for every scalar option", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1000, max: 1000 }),
        (flag, env) => {
          const plan = ok({ paths: ["h.ts"], priority: flag }, { KOPF_RUN_PRIORITY: String(env) });
          return plan.priority === flag;
        },
      ),
    );
  });
});
