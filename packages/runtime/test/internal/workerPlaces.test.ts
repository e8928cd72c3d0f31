// Covers the queues' places under the worker limit: at most `limit` objects start, the others
// start in arrival order as places are left, a left place is free again once nobody waits, and
// no limit at all with `null`.
import { describe, expect, it } from "vitest";
import * as WorkerPlaces from "../../src/internal/workerPlaces.ts";

/** Runs a script of entries (a name) and leaves ("-") and returns the names started, in order. */
const run = (limit: number | null, script: ReadonlyArray<string>): Array<string> => {
  const places = WorkerPlaces.make(limit);
  const started: Array<string> = [];
  for (const step of script) {
    if (step === "-") places.leave();
    else places.enter(() => started.push(step));
  }
  return started;
};

describe("WorkerPlaces", () => {
  it.each([
    { limit: 2, script: ["a", "b", "c", "d"], started: ["a", "b"] },
    { limit: 2, script: ["a", "b", "c", "d", "-"], started: ["a", "b", "c"] },
    { limit: 2, script: ["a", "b", "c", "d", "-", "-", "-"], started: ["a", "b", "c", "d"] },
    { limit: 1, script: ["a", "-", "b", "c"], started: ["a", "b"] },
    { limit: 1, script: ["a", "-", "b", "-", "c", "d", "-"], started: ["a", "b", "c", "d"] },
    { limit: null, script: ["a", "b", "c", "-", "d"], started: ["a", "b", "c", "d"] },
  ])("limit $limit, $script: $started", ({ limit, script, started }) => {
    expect(run(limit, script)).toEqual(started);
  });
});
