/**
 * RunOptions: the mapping of `kopf run`/`kopf freeze` options onto peering settings (docs/guide/cli.md,
 * Kopf's `running.run` and `cli.freeze`), checked through `Settings.make`.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import { RunOptions, Settings } from "../src/index.ts";

const peering = (overrides: Settings.Overrides) => {
  const made = Settings.make(overrides);
  if (Result.isFailure(made)) return assert.fail(made.failure.message);
  return made.success.peering;
};

const defaults = Settings.defaults.peering;

describe("forRun", () => {
  it.each<[string, RunOptions.RunOptions, Partial<Settings.PeeringSettings>]>([
    ["no options", {}, {}],
    ["-A", { clusterwide: true }, { clusterwide: true }],
    ["-P NAME makes peering mandatory", { peeringName: "team" }, { name: "team", mandatory: true }],
    ["--standalone", { standalone: true }, { standalone: true }],
    ["--standalone unset keeps the setting", { standalone: undefined }, {}],
    ["-p 10", { priority: 10 }, { priority: 10 }],
    ["--dev", { dev: true }, { priority: 666 }],
    ["--dev wins over -p", { dev: true, priority: 10 }, { priority: 666 }],
    ["--dev off keeps -p", { dev: false, priority: 10 }, { priority: 10 }],
  ])("%s", (_, options, expected) => {
    assert.deepStrictEqual(peering(RunOptions.forRun(options)), { ...defaults, ...expected });
  });

  it("sets the peering mode from the run mode even over an earlier setting", () => {
    const base = Settings.make({ peering: { clusterwide: true } });
    assert(Result.isSuccess(base));
    const made = Settings.make(RunOptions.forRun({}), base.success);
    assert.deepStrictEqual(
      Result.map(made, (s) => s.peering.clusterwide),
      Result.succeed(false),
    );
  });
});

describe("forFreeze", () => {
  it.each<[string, RunOptions.FreezeOptions, Partial<Settings.PeeringSettings>]>([
    ["-P NAME -p 100", { peeringName: "default", priority: 100 }, { name: "default", priority: 100 }],
    ["--dev", { peeringName: "x", priority: 100, dev: true }, { name: "x", priority: 666 }],
  ])("%s", (_, options, expected) => {
    assert.deepStrictEqual(peering(RunOptions.forFreeze(options)), { ...defaults, ...expected });
  });
});
