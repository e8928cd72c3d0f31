// Property of the whole changing cycle across restarts (docs/behaviour/processing.md#changing-causes, docs/behaviour/processing.md#lifecycles, docs/behaviour/processing.md#errors-and-retries): for any scripted
// handler outcomes, lifecycle and retry limits, cycles repeated as the reactor would (applying
// each patch, sleeping the delays, a fresh operator every cycle) always end done, leave no
// progress annotations, never invoke a handler after its final outcome, and respect the
// retries limit.
import { describe, expect, it } from "@effect/vitest";
import { Lifecycles, Matching, PermanentError, TemporaryError } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import { TestClock } from "effect/testing";
import fc from "fast-check";
import * as Execution from "../../src/execution/Execution.ts";
import * as F from "./fixtures.ts";

type Step = "ok" | "temporary" | "temporary-now" | "permanent" | "arbitrary";

const scripts = fc.array(
  fc.record({
    steps: fc.array(fc.constantFrom<Step>("ok", "temporary", "temporary-now", "permanent", "arbitrary"), {
      minLength: 1,
      maxLength: 5,
    }),
    retries: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    errors: fc.constantFrom("temporary" as const, "permanent" as const, "ignored" as const),
  }),
  { minLength: 1, maxLength: 3 },
);
const lifecycles = fc.constantFrom(
  Lifecycles.asap,
  Lifecycles.all_at_once,
  Lifecycles.one_by_one,
  Lifecycles.shuffled,
  Lifecycles.randomized,
);

const run = (
  plans: ReadonlyArray<{
    steps: ReadonlyArray<Step>;
    retries: number | undefined;
    errors: "temporary" | "permanent" | "ignored";
  }>,
  lifecycle: (typeof Lifecycles)["asap"],
) =>
  Effect.gen(function* () {
    const calls = plans.map(() => 0);
    const finals = plans.map(() => false);
    const violations: Array<string> = []; // handler errors would be judged, not reported
    const declare = () =>
      F.changingHandlers((r) =>
        plans.forEach((plan, i) => {
          r.on.create(
            F.SPEC,
            {
              id: `h${i}`,
              errors: plan.errors,
              backoff: 2,
              ...(plan.retries === undefined ? {} : { retries: plan.retries }),
            },
            () => {
              if (finals[i]) violations.push(`h${i} invoked after its final outcome`);
              const step: Step = plan.steps[calls[i]!] ?? "ok"; // scripts end in success
              calls[i]!++;
              switch (step) {
                case "ok":
                  return { call: calls[i] };
                case "temporary":
                  throw new TemporaryError("t", { delay: 1 });
                case "temporary-now":
                  throw new TemporaryError("t", { delay: null });
                case "permanent":
                  throw new PermanentError("p");
                case "arbitrary":
                  throw new Error("a");
              }
            },
          );
        }),
      );
    let body: RawBody = F.body();
    for (let cycle = 0; cycle < 100; cycle++) {
      const owned = declare(); // a fresh operator every cycle: only the object carries state
      const rec = F.recorder();
      const cause = F.changing({ logger: rec.logger, body });
      const result = yield* Execution.runChanging({
        cause,
        handlers: Matching.changingHandlers(owned, cause),
        owned,
        lifecycle,
      });
      for (const [id, outcome] of result.outcomes) if (outcome.final) finals[Number(id.slice(1))] = true;
      body = F.applied(body, cause.patch);
      expect(violations).toEqual([]);
      if (result.done) {
        const annotations = (body.metadata as { annotations?: Record<string, string> }).annotations ?? {};
        expect(Object.keys(annotations).filter((k) => k.startsWith("kopf.zalando.org/"))).toEqual([]);
        plans.forEach((plan, i) => {
          if (plan.retries !== undefined) expect(calls[i]).toBeLessThanOrEqual(plan.retries);
          expect(finals[i]).toBe(true);
        });
        return cycle;
      }
      yield* TestClock.adjust(`${Math.min(...result.delays)} seconds`);
    }
    throw new Error("the cause never finished");
  });

describe("changing cycles", () => {
  it("always finish, purge their progress, and never re-run a finished handler", async () => {
    await fc.assert(
      fc.asyncProperty(scripts, lifecycles, (plans, lifecycle) =>
        Effect.runPromise(run(plans, lifecycle).pipe(Effect.provide(TestClock.layer()))).then(() => true),
      ),
      { numRuns: 150 },
    );
  });
});
