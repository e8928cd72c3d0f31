// Covers the performer of a cycle's instructions: the instructions that need no effect are
// answered synchronously (a consistency wait too, when a newer queued event would cut it short),
// the others are left to effects, and a cycle with nothing to do — the
// echo of the operator's own patch once the object is handled — is answered from start to
// finish without any effect, leaving the patch empty (no write) and the memory as it was; run at
// once (`runNow`), a cycle that meets an effect changes nothing.
import { assert, describe, it } from "@effect/vitest";
import { CyclePlan, ResourceMemory } from "@kopf/causes";
import { Registry } from "@kopf/registry";
import { Settings } from "@kopf/settings";
import { Patch, type RawBody, type RawEvent } from "@kopf/structs";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as References from "effect/References";
import * as CycleInstructions from "../../src/internal/cycleInstructions.ts";
import * as Pressure from "../../src/Pressure.ts";
import * as Harness from "../fixtures/Harness.ts";

const RES = "kopfexamples.kopf.dev";

const body0 = {
  ...Harness.example("e1"),
  metadata: { name: "e1", namespace: "ns1", uid: "u1", resourceVersion: "1" },
} as RawBody;

/** One cycle of `event` over `memory`: its performer, patch and plan's first step. */
const cycleOf = (
  registry: Registry.Registry,
  event: RawEvent,
  memory: CycleInstructions.Cycle["memory"],
  services: Context.Context<never> = Context.empty(),
) =>
  Effect.gen(function* () {
    const patch = new Patch.Patch(event.object, { fns: memory.remaining?.fns ?? [] });
    const settings = Settings.defaults;
    const pressure = yield* Pressure.make;
    const performer = CycleInstructions.make({
      registry,
      resource: Harness.resource,
      lifecycle: undefined,
      engines: {},
      settings,
      services,
      event,
      key: "u1",
      memory,
      context: { pressure, consistencyTime: undefined },
      patch,
    });
    const start = CyclePlan.start({
      type: event.type,
      body: event.object,
      finalizer: settings.persistence.finalizer,
      consistencyTime: undefined,
      patchInitiallyEmpty: patch.isEmpty(),
      engines: { indexing: false, ownership: false },
    });
    return { performer, patch, start, pressure };
  });

/** The plan's instructions from `start`, answered by the performer or, for effects, by `effect`. */
const trace = (
  performer: CycleInstructions.Performer,
  start: CyclePlan.Step,
  effect: (instruction: CyclePlan.Instruction) => CyclePlan.Observation,
): ReadonlyArray<{ readonly tag: string; readonly now: boolean }> => {
  const seen: Array<{ tag: string; now: boolean }> = [];
  let step = start;
  while (!CyclePlan.isLast(step.instruction)) {
    const now = performer.now(step.instruction);
    seen.push({ tag: step.instruction._tag, now: now !== undefined });
    step = CyclePlan.advance(step.state, now ?? effect(step.instruction));
  }
  seen.push({ tag: step.instruction._tag, now: performer.now(step.instruction) !== undefined });
  return seen;
};

describe("cycleInstructions", () => {
  it.effect("answers only the effect-free instructions synchronously", () =>
    Effect.gen(function* () {
      const event: RawEvent = { type: "MODIFIED", object: body0 };
      const memory = { causes: ResourceMemory.fresh("MODIFIED"), memo: {}, remaining: undefined };
      const { performer } = yield* cycleOf(Registry.make(), event, memory);
      const table: ReadonlyArray<readonly [CyclePlan.Instruction, boolean]> = [
        [{ _tag: "Select" }, true],
        [{ _tag: "Remember", change: { _tag: "Carry", pending: undefined } }, true],
        [{ _tag: "Patch" }, true],
        // Below the least level (Info by default): the line is dropped anyway.
        [{ _tag: "Log", level: "Debug", message: "a line" }, true],
        [{ _tag: "Log", level: "Warning", message: "a line" }, false],
        [{ _tag: "Log", level: "Error", message: "a line", local: true }, false],
        [{ _tag: "Finish", outcome: { _tag: "Gone" } }, true],
        [{ _tag: "Index" }, false],
        [{ _tag: "Claim" }, false],
        [{ _tag: "Fence" }, false],
        [{ _tag: "Sleep", seconds: 1 }, false],
        [{ _tag: "Wait", until: 1 }, false],
        [{ _tag: "Touch" }, false],
      ];
      for (const [instruction, synchronous] of table)
        assert.strictEqual(performer.now(instruction) !== undefined, synchronous, instruction._tag);
      // Once the patch holds anything (here the diff-base), sending it is an effect.
      assert.isDefined(performer.now({ _tag: "StoreDiffBase", old: undefined, new: { spec: {} } }));
      assert.isUndefined(performer.now({ _tag: "Patch" }));
      // With debug lines logged, a debug line is an effect.
      const verbose = yield* cycleOf(
        Registry.make(),
        event,
        memory,
        Context.make(References.MinimumLogLevel, "Debug"),
      );
      assert.isUndefined(verbose.performer.now({ _tag: "Log", level: "Debug", message: "a line" }));
    }),
  );

  it.effect("a consistency wait that a newer queued event would cut short at once is not slept", () =>
    Effect.gen(function* () {
      const event: RawEvent = { type: "MODIFIED", object: body0 };
      const memory = { causes: ResourceMemory.fresh("MODIFIED"), memo: {}, remaining: undefined };
      // The cycle's clock is the test's, at 0: the deadline of 5,000 is ahead, the one of 0 has passed.
      const services = yield* Effect.context<never>();
      const { performer, pressure } = yield* cycleOf(Registry.make(), event, memory, services);
      assert.isUndefined(performer.now({ _tag: "Wait", until: 5_000 }), "nothing queued: it sleeps");
      Pressure.raiseUnsafe(pressure, yield* Effect.fiber);
      assert.deepStrictEqual(performer.now({ _tag: "Wait", until: 5_000 }), {
        _tag: "Waited",
        sleptFully: false,
      });
      // A deadline already passed is a full wait (the object is then re-read), raised flag or not.
      assert.isUndefined(performer.now({ _tag: "Wait", until: 0 }));
    }),
  );

  it.effect("the echo of our own patch is answered without any effect and writes nothing", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.create(RES, { id: "create" }, () => undefined);
      const memory: CycleInstructions.Cycle["memory"] = {
        causes: ResourceMemory.fresh("ADDED"),
        memo: {},
        remaining: undefined,
      };

      // The creation: the handler runs (an effect), the diff-base is stored, the patch is sent.
      const added = yield* cycleOf(registry, { type: "ADDED", object: body0 }, memory);
      const first = trace(added.performer, added.start, (instruction) => {
        if (instruction._tag === "RunChanging")
          return { _tag: "Changed", done: true, skipped: false, delays: [] };
        if (instruction._tag === "Patch")
          return { _tag: "Patched", outcome: { _tag: "Applied", resourceVersion: "2" } };
        return { _tag: "Performed" };
      });
      assert.deepStrictEqual(
        first.filter((step) => !step.now).map((step) => step.tag),
        ["RunChanging", "Patch"],
      );
      assert.isFalse(added.patch.isEmpty());
      // The patch stores the diff-base annotation only; its echo carries it.
      const sent = added.patch.toMergePatch();
      assert.deepStrictEqual(Object.keys(sent), ["metadata"]);
      const { metadata } = sent as { metadata: { annotations: Record<string, string> } };
      const { annotations } = metadata;
      const echoed: RawBody = {
        ...body0,
        metadata: { ...body0.metadata, resourceVersion: "2", annotations },
      };

      // Its echo: nothing to run, nothing to write, the memory unchanged.
      const before = memory.causes;
      const echo = yield* cycleOf(registry, { type: "MODIFIED", object: echoed }, memory);
      const steps = trace(echo.performer, echo.start, (instruction) =>
        assert.fail(`an effect was asked for: ${JSON.stringify(instruction)}`),
      );
      assert.deepStrictEqual(
        steps.map((step) => step.tag),
        ["Select", "Log", "Patch", "Log", "Remember", "Finish"],
      );
      assert.isTrue(steps.every((step) => step.now));
      assert.isTrue(echo.patch.isEmpty());
      assert.strictEqual(memory.causes, before);
      assert.isUndefined(memory.remaining);
    }),
  );

  // runNow does a cycle at once only if it needs no effect at all, and changes nothing when it
  // gives up. Here the creation's handlers are answered at once (as if they ran synchronously):
  // the diff-base is stored, the object marked fully handled in memory, and then the patch needs
  // sending, an effect. The memory's change came before it, and must not be left made.
  it.effect("runNow: a whole cycle at once, or nothing changed at its first effect", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.create(RES, { id: "create" }, () => undefined);
      const handledAtOnce = (performer: CycleInstructions.Performer): CycleInstructions.Performer => ({
        ...performer,
        now: (instruction) =>
          instruction._tag === "RunChanging"
            ? { _tag: "Changed", done: true, skipped: false, delays: [] }
            : performer.now(instruction),
      });
      const memory: CycleInstructions.Cycle["memory"] = {
        causes: ResourceMemory.fresh("ADDED"),
        memo: {},
        remaining: undefined,
      };
      const added = yield* cycleOf(registry, { type: "ADDED", object: body0 }, memory);
      const steps = trace(handledAtOnce(added.performer), added.start, () => ({
        _tag: "Patched",
        outcome: { _tag: "Applied", resourceVersion: "2" },
      }));
      const tags = steps.map((step) => step.tag);
      assert.isBelow(tags.indexOf("Remember"), tags.indexOf("Patch"));
      assert.isFalse(steps[tags.indexOf("Patch")]?.now);
      assert.isTrue(memory.causes.fullyHandledOnce, "performed step by step, the cycle remembers");

      const fresh: CycleInstructions.Cycle["memory"] = {
        causes: ResourceMemory.fresh("ADDED"),
        memo: {},
        remaining: undefined,
      };
      const again = yield* cycleOf(registry, { type: "ADDED", object: body0 }, fresh);
      // It gives up at the patch, which needs sending.
      const givenUp = CycleInstructions.runNow(handledAtOnce(again.performer), again.start);
      assert.deepStrictEqual(givenUp._tag === "NeedsEffect" && givenUp.instruction._tag, "Patch");
      assert.isFalse(fresh.causes.fullyHandledOnce, "a cycle given up on changed the memory");
      // Without a synchronous answer for the handlers, it gives up at once, before them.
      const atHandlers = CycleInstructions.runNow(added.performer, added.start);
      assert.deepStrictEqual(atHandlers._tag === "NeedsEffect" && atHandlers.instruction._tag, "RunChanging");

      // Its echo (with the stored diff-base) is done at once, with the same outcome as step by step.
      const { metadata } = again.patch.toMergePatch() as {
        metadata: { annotations: Record<string, string> };
      };
      const echoed: RawBody = {
        ...body0,
        metadata: { ...body0.metadata, resourceVersion: "2", annotations: metadata.annotations },
      };
      const echo = yield* cycleOf(registry, { type: "MODIFIED", object: echoed }, memory);
      const outcome = CycleInstructions.runNow(echo.performer, echo.start);
      assert.notStrictEqual(outcome._tag, "NeedsEffect");
      let step = echo.start;
      while (step.instruction._tag !== "Finish")
        step = CyclePlan.advance(
          step.state,
          echo.performer.now(step.instruction) ?? assert.fail("an effect"),
        );
      assert.deepStrictEqual(outcome, step.instruction.outcome);
      assert.isTrue(echo.patch.isEmpty());
    }),
  );
});
