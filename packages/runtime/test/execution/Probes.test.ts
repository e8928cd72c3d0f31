// Covers the probes for the health endpoint (docs/behaviour/operator.md#liveness-endpoint): results by id, at most one run per
// 10 s on the clock, concurrent requests sharing one run, failures not remembered.
import { describe, expect, it } from "@effect/vitest";
import { PermanentError, Registry } from "@kopf/registry";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import { TestClock } from "effect/testing";
import * as Probes from "../../src/execution/Probes.ts";
import * as F from "./fixtures.ts";

describe("Probes", () => {
  it.effect("runs the probes at most once per 10 seconds", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      let runs = 0;
      registry.on.probe({ id: "runs" }, () => ++runs);
      const prober = yield* Probes.make(registry, { logger: F.recorder().logger });
      expect(yield* prober.results).toEqual({ runs: 1 });
      yield* TestClock.adjust("9 seconds");
      expect(yield* prober.results).toEqual({ runs: 1 });
      yield* TestClock.adjust("1 second");
      expect(yield* prober.results).toEqual({ runs: 2 });
    }),
  );

  it.effect("shares one run among concurrent requests", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      const gate = yield* Deferred.make<void>();
      let runs = 0;
      registry.on.probe({ id: "slow" }, () => Effect.as(Deferred.await(gate), ++runs));
      const prober = yield* Probes.make(registry, { logger: F.recorder().logger });
      const a = yield* Effect.forkChild(prober.results);
      const b = yield* Effect.forkChild(prober.results);
      yield* Effect.yieldNow;
      yield* Deferred.succeed(gate, undefined);
      expect([yield* Fiber.join(a), yield* Fiber.join(b)]).toEqual([{ slow: 1 }, { slow: 1 }]);
      expect(runs).toBe(1);
    }),
  );

  it.effect("does not remember a failed run", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      let runs = 0;
      registry.on.probe({ id: "flaky" }, () => {
        if (++runs === 1) throw new PermanentError("down");
        return "up";
      });
      const prober = yield* Probes.make(registry, { logger: F.recorder().logger });
      const first = yield* Effect.exit(prober.results);
      expect(Exit.isFailure(first)).toBe(true);
      expect(yield* prober.results).toEqual({ flaky: "up" });
    }),
  );
});
