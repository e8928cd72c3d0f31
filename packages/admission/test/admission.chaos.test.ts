/**
 * Chaos: about 20,000 hostile requests to the real HTTPS webhook server on 127.0.0.1, in a
 * process of its own, mixed as an attacker might send them (see `fixtures/hostileRequests.ts`
 * for the kinds). Printed: requests by kind, answers by status, crashes, log bytes, the longest
 * log line, and the server's memory before, during and after. Asserted: no crash, no 5xx, no
 * answer other than those stated for each kind, no log line over 8 KiB, at most 4 KiB of log
 * per request on average; resident memory under 512 MiB during the barrage and under 384 MiB
 * after it; and the JavaScript heap in use back within 64 MiB of where it started. What comes back
 * down is the heap. The resident memory is not compared with its peak: the allocator may keep the
 * pages it no longer uses (a run measured 193.1 MiB at the peak and, to the byte, after 15 s of
 * rest, with the heap in use back from 28.1 to 25.8 MiB), and the peak is sampled every 200 ms, so
 * a run can also read slightly more after the barrage than at its sampled peak.
 */
import { assert, describe, it } from "@effect/vitest";
import { assertHardened, barrage, report } from "./fixtures/barrage.ts";

const MiB = 1024 * 1024;
const LINE_BOUND = 8 * 1024;
const RSS_DURING = 512 * MiB;
const RSS_AFTER = 384 * MiB;
const HEAP_GROWTH = 64 * MiB;

describe("admission chaos", () => {
  it("20,000 hostile requests: no crash, no 5xx, short logs, bounded memory that comes back down", async () => {
    const figures = await barrage({
      mix: {
        valid: 7_100,
        notJson: 1_500,
        truncatedJson: 1_500,
        wrongTypes: 1_500,
        wrongEnvelope: 1_500,
        unknownPath: 1_500,
        wrongMethod: 1_500,
        notTls: 1_000,
        deepNesting: 1_000,
        deepInString: 500,
        declaredTooLarge: 600,
        streamedTooLarge: 100,
        hugeName: 200,
        hugeDenial: 200,
        wideObject: 200,
        slowBody: 50,
        slowHeaders: 50,
      },
      concurrency: 32,
      requestTimeout: 5,
      lineBound: LINE_BOUND,
      settleMs: 15_000,
      progress: (done, { answers }) => console.log(`${done} requests: ${JSON.stringify(answers)}`),
    });
    console.log(report("admission chaos", figures));
    assert.strictEqual(
      Object.values(figures.requests).reduce((a, b) => a + b, 0),
      20_000,
    );
    assertHardened(figures, LINE_BOUND, 4 * 1024);
    assert.isBelow(figures.rss.during, RSS_DURING);
    assert.isBelow(figures.rss.after, RSS_AFTER);
    assert.isBelow(figures.heap.after, figures.heap.before + HEAP_GROWTH);
  }, 1_800_000);
});
