/**
 * CyclePlan's invariants over every scene (setup × event type × finalizers × deletion × stored
 * essence × listing × consistency × engines) and every script of observations: the finalizer is
 * never removed while a changing handler is pending; at most one finalizer operation and at most
 * one patch per cycle; no changing handler runs on an inconsistent state or in a cycle that
 * changes the finalizer; the diff-base is stored and the memory marked only for a fully handled
 * cause; a released object has nothing left to wait for; at most one write per cycle (the patch,
 * or a touch when nothing was sent); the sleep is the earliest delay, at most 600 s; only what a
 * conflict left is carried over; nothing is applied for `DELETED`, an object not owned or a lost
 * ownership.
 */
import { describe, expect, it } from "@effect/vitest";
import { Body, type RawEventType } from "@kopf/structs";
import * as fc from "fast-check";
import { CyclePlan, FinalizerDecision } from "../src/index.ts";
import { answer, CONSISTENCY, cycleOf, FIN, type Scene, type Script, SETUPS } from "./internal/cycles.ts";

const scenes: fc.Arbitrary<Scene> = fc.record({
  setup: fc.constantFrom(...(Object.keys(SETUPS) as Array<keyof typeof SETUPS>)),
  type: fc.constantFrom<RawEventType | null>(null, "ADDED", "MODIFIED", "DELETED"),
  finalizers: fc.constantFrom(undefined, [FIN], ["other"], ["other", FIN]),
  deletion: fc.constantFrom(undefined, null, "2020-12-31T23:59:59Z"),
  stored: fc.constantFrom("none" as const, "same" as const, "other" as const),
  listed: fc.boolean(),
  consistency: fc.constantFrom(...(Object.keys(CONSISTENCY) as Array<keyof typeof CONSISTENCY>)),
  engines: fc.record({ indexing: fc.boolean(), ownership: fc.boolean() }),
});

const delays = fc.array(fc.integer({ min: 0, max: 900 }), { maxLength: 3 });
const scripts: fc.Arbitrary<Script> = fc.record({
  claimed: fc.boolean(),
  eventResults: fc.boolean(),
  spawnedDelays: delays,
  excluded: fc.constantFrom([], ["dm"]),
  sleptFully: fc.boolean(),
  refreshed: fc.constantFrom("same" as const, "newer" as const, "failed" as const),
  changed: fc.constantFrom("done" as const, "skipped" as const, "pending" as const),
  changedDelays: delays,
  holds: fc.boolean(),
  patched: fc.constantFrom<CyclePlan.Patched["_tag"]>(
    "NothingToPatch",
    "Applied",
    "Conflict",
    "Invalid",
    "Gone",
  ),
  wokeEarly: fc.boolean(),
});

/** The cycle's instructions and what the interpreter observed after each. */
const cycle = (scene: Scene, script: Script) => {
  const made = cycleOf(scene);
  const f = made.facts;
  const respond = answer(made, script);
  const observed: Array<CyclePlan.Observation> = [];
  const instructions = CyclePlan.trace(f, (i) => {
    const o = respond(i);
    observed.push(o);
    return o;
  });
  return { f, instructions, observed };
};

const tags = (instructions: ReadonlyArray<CyclePlan.Instruction>) => instructions.map((i) => i._tag);
const removes = (i: CyclePlan.Instruction) => i._tag === "Finalizer" && i.decision._tag === "Remove";
const property = (check: (scene: Scene, script: Script) => void) =>
  fc.assert(fc.property(scenes, scripts, check), { numRuns: 500 });

describe("CyclePlan properties", () => {
  it("never removes the finalizer while a changing handler is pending", () =>
    property((scene, script) => {
      const { instructions, observed } = cycle(scene, script);
      const pending = observed.some((o) => o._tag === "Changed" && !o.done && !o.skipped);
      if (pending) expect(instructions.filter(removes)).toEqual([]);
    }));

  it("at most one finalizer operation and at most one write per cycle (the patch, or a touch when nothing was sent)", () =>
    property((scene, script) => {
      const { instructions, observed } = cycle(scene, script);
      const kinds = tags(instructions);
      expect(kinds.filter((t) => t === "Finalizer").length).toBeLessThanOrEqual(1);
      expect(kinds.filter((t) => t === "Patch").length).toBeLessThanOrEqual(1);
      const sent = observed.some((o) => o._tag === "Patched" && o.outcome._tag !== "NothingToPatch");
      expect(kinds.filter((t) => t === "Touch").length).toBeLessThanOrEqual(sent ? 0 : 1);
    }));

  it("no changing handler runs after a finalizer change, on a carried patch, or without the awaited echo", () =>
    property((scene, script) => {
      const { f, instructions, observed } = cycle(scene, script);
      const at = instructions.findIndex((i) => i._tag === "RunChanging");
      if (at < 0) return;
      expect(tags(instructions.slice(0, at))).not.toContain("Finalizer");
      expect(f.patchInitiallyEmpty).toBe(true);
      const waited = instructions.findIndex((i) => i._tag === "Wait");
      if (f.consistencyTime !== undefined) {
        expect(waited).toBeGreaterThanOrEqual(0);
        expect(observed[waited]).toEqual({ _tag: "Waited", sleptFully: true });
        // ... and a re-read found nothing newer than this state (or could not tell).
        const refreshed = observed[waited + 1];
        expect(refreshed?._tag).toBe("Refreshed");
        if (refreshed?._tag === "Refreshed" && refreshed.resourceVersion !== undefined)
          expect(refreshed.resourceVersion).toBe(Body.resourceVersion(f.body));
      }
    }));

  it("the diff-base is stored and the memory marked only for a fully handled cause", () =>
    property((scene, script) => {
      const { instructions, observed } = cycle(scene, script);
      const finished = observed.some((o) => o._tag === "Changed" && (o.done || o.skipped));
      expect(tags(instructions).includes("StoreDiffBase")).toBe(finished);
      const marked = instructions.some((i) => i._tag === "Remember" && i.change._tag === "MarkFullyHandled");
      expect(marked).toBe(finished);
    }));

  it("a deleted object is released only when it is ours, still there, and nothing waits", () =>
    property((scene, script) => {
      const { f, instructions, observed } = cycle(scene, script);
      const releases = instructions.filter(
        (i) =>
          i._tag === "Finalizer" &&
          i.decision._tag === "Remove" &&
          i.decision.message === FinalizerDecision.RELEASING_MESSAGE,
      );
      if (releases.length === 0) return;
      expect(typeof scene.deletion).toBe("string");
      expect(scene.finalizers).toContain(FIN);
      expect(f.type).not.toBe("DELETED");
      const waits = observed.flatMap((o) => (o._tag === "Spawned" || o._tag === "Changed" ? o.delays : []));
      expect(waits).toEqual([]);
    }));

  it("sleeps for the earliest delay (at most 600 s) only when nothing was sent; never patches for DELETED, an object not owned or a lost ownership", () =>
    property((scene, script) => {
      const { f, instructions, observed } = cycle(scene, script);
      const last = instructions[instructions.length - 1];
      if (!instructions.some((i) => i._tag === "Patch")) {
        expect(last?._tag === "Fail" || (last?._tag === "Finish" && last.outcome._tag !== "Applied")).toBe(
          true,
        );
        return;
      }
      expect(f.type).not.toBe("DELETED");
      expect(observed).not.toContainEqual({ _tag: "Claimed", claimed: false });
      expect(observed).not.toContainEqual({ _tag: "Held", holds: false });
      const sleep = instructions.find((i) => i._tag === "Sleep");
      if (sleep === undefined) return;
      const waits = observed.flatMap((o) => (o._tag === "Spawned" || o._tag === "Changed" ? o.delays : []));
      expect(sleep.seconds).toBe(Math.min(...waits, CyclePlan.KEEPALIVE_SECONDS));
      expect(observed).toContainEqual({ _tag: "Patched", outcome: { _tag: "NothingToPatch" } });
    }));

  it("what a conflict left is carried to the next cycle, and only that", () =>
    property((scene, script) => {
      const { instructions, observed } = cycle(scene, script);
      const carried = instructions.flatMap((i) =>
        i._tag === "Remember" && i.change._tag === "Carry" ? [i.change.pending] : [],
      );
      const conflict = observed.find((o) => o._tag === "Patched" && o.outcome._tag === "Conflict");
      if (!instructions.some((i) => i._tag === "Patch")) {
        expect(carried).toEqual([]);
        return;
      }
      expect(carried).toHaveLength(1);
      expect(carried[0] !== undefined).toBe(conflict !== undefined);
    }));
});
