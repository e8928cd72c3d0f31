/**
 * Hostile requests to the real HTTPS webhook server on 127.0.0.1, in a process of its own as in
 * an operator: oversized names and bodies, deep nesting, malformed JSON, wrong types and
 * envelopes, bodies and headers sent too slowly, unknown paths and methods, plain TCP. Counted:
 * crashes (0), 5xx answers (0), answers other than those stated for each kind (0), log lines
 * over 8 KiB (0), and log bytes per request (bounded). The long barrage with memory figures is
 * `admission.chaos.test.ts`.
 */
import { describe, it } from "@effect/vitest";
import { assertHardened, barrage, report } from "../fixtures/barrage.ts";

const LINE_BOUND = 8 * 1024;

describe("the webhook server under hostile requests", () => {
  it("refuses each kind with a 4xx, answers the valid ones, never crashes, and keeps its log short", async () => {
    const figures = await barrage({
      mix: {
        valid: 20,
        hugeName: 3,
        hugeDenial: 3,
        wideObject: 2,
        deepNesting: 4,
        deepInString: 2,
        notJson: 6,
        truncatedJson: 6,
        wrongTypes: 6,
        wrongEnvelope: 6,
        declaredTooLarge: 4,
        streamedTooLarge: 2,
        slowBody: 2,
        slowHeaders: 2,
        unknownPath: 6,
        wrongMethod: 6,
        notTls: 6,
      },
      concurrency: 8,
      // Long enough for a 2 MB body on a busy machine; the slow kinds wait it out.
      requestTimeout: 5,
      lineBound: LINE_BOUND,
      settleMs: 0,
    });
    console.log(report("hostile requests", figures));
    assertHardened(figures, LINE_BOUND, 4 * 1024);
  }, 120_000);
});
