/**
 * The deferred TurboFan of `kopf run`: whether the deferral applies given Node's own options (the
 * user's flags for V8's tiers win) and V8's version, and — in a separate Node process, since the
 * flags change the whole process — that a hot function does not reach TurboFan until the process
 * has used the CPU given and does after that, where V8 on its own compiles it with TurboFan at
 * once; and that the process's CPU is read at most every `LOOK_EVERY_MS`.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as DeferredOptimization from "../src/DeferredOptimization.ts";

const here = dirname(fileURLToPath(import.meta.url));
const AFTER = DeferredOptimization.CPU_SECONDS * 1_000_000;
const V8_24 = "13.6.233.17-node.40";

describe("DeferredOptimization.plan", () => {
  it.each([
    { execArgv: [], nodeOptions: undefined, after: AFTER },
    { execArgv: ["--enable-source-maps"], nodeOptions: "--max-semi-space-size=16", after: AFTER },
    { execArgv: ["--no-turbofan"], nodeOptions: undefined, after: undefined },
    { execArgv: [], nodeOptions: "--max-opt=2", after: undefined },
    { execArgv: ["--jitless"], nodeOptions: undefined, after: undefined },
    { execArgv: [], nodeOptions: " --no-opt ", after: undefined },
    { execArgv: ["--maglev"], nodeOptions: undefined, after: undefined },
    { execArgv: ["--always_turbofan"], nodeOptions: undefined, after: undefined },
  ])("$execArgv / $nodeOptions → $after", ({ execArgv, nodeOptions, after }) => {
    expect(DeferredOptimization.plan(execArgv, nodeOptions, V8_24)).toBe(after);
  });

  it.each([
    { v8: "13.6.233.17-node.40", after: AFTER },
    { v8: "14.1.146.11-node.12", after: AFTER },
    { v8: "12.4.254.21-node.33", after: undefined },
    { v8: "11.3.244.8-node.33", after: undefined },
  ])("V8 $v8 → $after", ({ v8, after }) => {
    expect(DeferredOptimization.plan([], undefined, v8)).toBe(after);
  });
});

describe("DeferredOptimization.apply in a Node process", () => {
  const run = (
    mode: "deferred" | "spent" | "none" | "default",
    thresholdMs: number,
  ): {
    before: boolean;
    after: boolean;
    maglevBefore: boolean;
    looks: number;
    collections: number;
    wallMs: number;
  } =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          "--allow-natives-syntax",
          join(here, "fixtures/deferred-optimization.ts"),
          mode,
          String(thresholdMs),
        ],
        { encoding: "utf8", timeout: 60_000 },
      ),
    );

  it("keeps a hot function from TurboFan until the process has used the CPU given, then lets it in", () => {
    expect(run("default", 400)).toMatchObject({ before: true, after: true, sink: true });
    expect(run("deferred", 400)).toMatchObject({ before: false, after: true, sink: true });
  });

  // What the version gate of `plan` stands on: from V8 13 on, Maglev's code runs in the window;
  // before it, only the baseline compiler's (Sparkplug), which costs a third more CPU per object.
  it(`runs Maglev's code in the window from V8 ${DeferredOptimization.FROM_V8_MAJOR} on, and not before`, () => {
    const gated = DeferredOptimization.plan([], undefined, process.versions.v8) !== undefined;
    expect(run("deferred", 400).maglevBefore).toBe(gated);
  });

  it("reads the process's CPU at most every LOOK_EVERY_MS, not after every collection", () => {
    const { looks, collections, wallMs } = run("deferred", 400);
    expect(looks).toBeLessThanOrEqual(Math.floor(wallMs / DeferredOptimization.LOOK_EVERY_MS) + 1);
    expect(collections).toBeGreaterThan(looks * 4);
  });

  it("leaves V8's tiers alone when the process has used that much CPU already, or without a plan", () => {
    expect(run("spent", 400)).toMatchObject({ before: true, after: true, sink: true });
    expect(run("none", 400)).toMatchObject({ before: true, after: true, sink: true });
  });
});
