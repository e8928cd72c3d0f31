// Covers the live event loop load: a reader says ~1 after the thread ran code without a break and
// ~0 after it only waited for a timer, and two readers measure from their own previous readings.

import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { LoopLoad } from "../../src/LoopLoad.ts";
import * as LoopUtilization from "../../src/node/LoopUtilization.ts";

const readerOf = () =>
  Effect.runSync(
    Effect.provide(
      Effect.map(Effect.service(LoopLoad), (load) => load.reader),
      LoopUtilization.layer,
    ),
  );

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: the event loop cannot run anything else
  }
};

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("LoopUtilization", () => {
  it("reads a busy loop as saturated and a waiting one as idle, each reader from its last reading", async () => {
    const makeReader = readerOf();
    const first = makeReader();
    await pause(10); // a turn of the loop: readings cover whole turns
    first();
    spin(200);
    await pause(0);
    const busy = first();
    expect(busy).toBeGreaterThanOrEqual(0.9);
    expect(busy).toBeLessThanOrEqual(1);
    const second = makeReader();
    await pause(200);
    const idle = first();
    expect(idle).toBeLessThan(0.5);
    // The second reader began after the busy stretch: it saw only the wait.
    expect(second()).toBeLessThan(0.5);
  });
});
