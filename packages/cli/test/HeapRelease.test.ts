/**
 * Giving memory back when `kopf run` falls idle: when a tick decides to release (idle ticks in a
 * row, grown since the last release; the first release, start-up's, at the first idle tick), and — in a separate Node process, since the collection
 * changes the whole process — that the release really brings the RSS down after a burst whose
 * objects are gone, where V8 on its own keeps it up.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as HeapRelease from "../src/HeapRelease.ts";

const here = dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;
const busy = { cpuMs: 400, tickMs: 1000 };
const idle = { cpuMs: 10, tickMs: 1000 };
/** Idle ticks in a row before the one that completes the wait. */
const N = HeapRelease.IDLE_TICKS - 1;

describe("HeapRelease.tick", () => {
  it.each([
    {
      name: "still starting (busy): no release",
      state: HeapRelease.initial,
      sample: { ...busy, rss: 100 * MiB },
      release: false,
      idleTicks: 0,
    },
    {
      name: "first idle tick after start: the start-up release, without the longer wait",
      state: HeapRelease.initial,
      sample: { ...idle, rss: 100 * MiB },
      release: true,
      idleTicks: 0,
    },
    {
      name: "first idle tick after a burst: waits",
      state: { idleTicks: 0, floor: 100 * MiB },
      sample: { ...idle, rss: 200 * MiB },
      release: false,
      idleTicks: 1,
    },
    {
      name: "the last idle tick of the wait after a burst",
      state: { idleTicks: N, floor: 100 * MiB },
      sample: { ...idle, rss: 200 * MiB },
      release: true,
      idleTicks: 0,
    },
    {
      name: "busy tick resets",
      state: { idleTicks: N, floor: undefined },
      sample: { ...busy, rss: 100 * MiB },
      release: false,
      idleTicks: 0,
    },
    {
      name: "idle, not grown since the last release",
      state: { idleTicks: 5, floor: 100 * MiB },
      sample: { ...idle, rss: 124 * MiB },
      release: false,
      idleTicks: 6,
    },
    {
      name: "idle, grown by a quarter",
      state: { idleTicks: N, floor: 100 * MiB },
      sample: { ...idle, rss: 125 * MiB },
      release: true,
      idleTicks: 0,
    },
    {
      name: "grown but busy",
      state: { idleTicks: N, floor: 100 * MiB },
      sample: { ...busy, rss: 300 * MiB },
      release: false,
      idleTicks: 0,
    },
    {
      name: "just under the idle share",
      state: { idleTicks: N, floor: undefined },
      sample: { cpuMs: 49, tickMs: 1000, rss: MiB },
      release: true,
      idleTicks: 0,
    },
    {
      name: "at the idle share: busy",
      state: { idleTicks: N, floor: undefined },
      sample: { cpuMs: 50, tickMs: 1000, rss: MiB },
      release: false,
      idleTicks: 0,
    },
  ])("$name", ({ state, sample, release, idleTicks }) => {
    const next = HeapRelease.tick(state, sample);
    expect(next.release).toBe(release);
    expect(next.state).toEqual({ idleTicks, floor: state.floor });
  });

  it("a release sets the floor", () => {
    expect(HeapRelease.released({ idleTicks: 0, floor: 300 * MiB }, 120 * MiB)).toEqual({
      idleTicks: 0,
      floor: 120 * MiB,
    });
  });
});

describe("HeapRelease.flushesStartUpCode", () => {
  it.each([
    { execArgv: [], nodeOptions: undefined, flushes: true },
    { execArgv: ["--no-concurrent-recompilation"], nodeOptions: "--max-old-space-size=512", flushes: true },
    { execArgv: ["--bytecode-old-age=3"], nodeOptions: undefined, flushes: false },
    { execArgv: [], nodeOptions: "--no-flush-bytecode", flushes: false },
    { execArgv: ["--flush_baseline_code"], nodeOptions: undefined, flushes: false },
    { execArgv: ["--stress-flush-code"], nodeOptions: undefined, flushes: false },
  ])("$execArgv / $nodeOptions → $flushes", ({ execArgv, nodeOptions, flushes }) => {
    expect(HeapRelease.flushesStartUpCode(execArgv, nodeOptions)).toBe(flushes);
  });

  // The age set again after the start-up release is meant to be V8's own default.
  it.runIf(process.versions.node.startsWith("24."))("restores V8's default code age (Node.js 24)", () => {
    const options = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    const age = /--bytecode-old-age \(.*\)\n\s+type: int\s+default: --bytecode-old-age=(\d+)/.exec(
      options,
    )?.[1];
    expect(Number(age)).toBe(HeapRelease.CODE_AGE_AFTER_START);
  });
});

describe("HeapRelease.start in a Node process", () => {
  const burst = (releasing: boolean, when = "later"): { before: number; after: number } =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [join(here, "fixtures/heap-burst.ts"), releasing ? "release" : "keep", when],
        { encoding: "utf8", timeout: 60_000 },
      ),
    );

  it("brings the RSS back down after a burst once idle; without it, V8 keeps it", () => {
    const released = burst(true);
    const kept = burst(false);
    // The burst holds ~150 MiB at once; all of it is garbage when the process falls idle.
    expect(kept.after).toBeGreaterThan(kept.before + 100 * MiB);
    expect(released.after).toBeLessThan(released.before + 50 * MiB);
  });

  it("gives start-up's garbage back at the first idle tick after it", () => {
    const released = burst(true, "start");
    const kept = burst(false, "start");
    expect(kept.after).toBeGreaterThan(kept.before + 100 * MiB);
    expect(released.after).toBeLessThan(released.before + 50 * MiB);
  });

  it("drops the bytecode of start-up's functions at the start-up release; they compile again when called", () => {
    const startUp = (
      mode: "flush" | "keep",
    ): { before: number; after: number; again: number; total: number } =>
      JSON.parse(
        execFileSync(process.execPath, [join(here, "fixtures/heap-startup-code.ts"), mode], {
          encoding: "utf8",
          timeout: 60_000,
        }),
      );
    const flushed = startUp("flush");
    const kept = startUp("keep");
    // 2,000 small functions, ~1 MiB of bytecode with Node's own: V8 keeps most of it on its own,
    // and drops most of it at the start-up release.
    expect(kept.after).toBeGreaterThan(kept.before / 2);
    expect(flushed.after).toBeLessThan(flushed.before / 4);
    expect(flushed.again).toBe(kept.again);
    expect(flushed.total).toBe(kept.total);
  });
});
