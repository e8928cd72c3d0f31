/**
 * ResourceMemory (docs/behaviour/causes.md#resuming): creation with `noticedByListing` only for listing events, `initial`
 * until fully handled once, memories keyed by uid ("" without one), kept across re-listings,
 * forgotten on DELETED and never resurrected by a late `remember`.
 */
import { describe, expect, it } from "@effect/vitest";
import type { RawEvent, RawEventType } from "@kopf/structs";
import * as HashMap from "effect/HashMap";
import * as fc from "fast-check";
import { ResourceMemory } from "../src/index.ts";

const event = (type: RawEventType | null, uid?: string): RawEvent => ({
  type,
  object: { metadata: uid === undefined ? {} : { uid } },
});

describe("fresh memories", () => {
  it.each<[RawEventType | null, boolean]>([
    [null, true],
    ["ADDED", false],
    ["MODIFIED", false],
    ["DELETED", false],
  ])("first seen with %s ⇒ noticedByListing=%s, initial=%s", (type, listed) => {
    const memory = ResourceMemory.fresh(type);
    expect(memory).toEqual({ noticedByListing: listed, fullyHandledOnce: false });
    expect(ResourceMemory.isInitial(memory)).toBe(listed);
  });

  it.each([
    [{ noticedByListing: true, fullyHandledOnce: false }, true],
    [{ noticedByListing: true, fullyHandledOnce: true }, false],
    [{ noticedByListing: false, fullyHandledOnce: false }, false],
    [{ noticedByListing: false, fullyHandledOnce: true }, false],
  ])("%j ⇒ initial=%s", (memory, initial) => {
    expect(ResourceMemory.isInitial(memory)).toBe(initial);
  });

  it("marking as fully handled ends the initial phase and is idempotent", () => {
    const handled = ResourceMemory.markFullyHandled(ResourceMemory.fresh(null));
    expect(handled).toEqual({ noticedByListing: true, fullyHandledOnce: true });
    expect(ResourceMemory.markFullyHandled(handled)).toBe(handled);
  });
});

describe("recall", () => {
  it("keeps the first event's listing flag across later events and re-listings", () => {
    let memories = ResourceMemory.empty();
    const first = ResourceMemory.recall(memories, event("ADDED", "u1"));
    memories = first.memories;
    const relisted = ResourceMemory.recall(memories, event(null, "u1"));
    expect(relisted.memory).toEqual({ noticedByListing: false, fullyHandledOnce: false });
    expect(relisted.memories).toBe(memories);
  });

  it("a restart: listed once, resumes until fully handled, not again after a re-listing", () => {
    const listed = ResourceMemory.recall(ResourceMemory.empty(), event(null, "u1"));
    expect(ResourceMemory.isInitial(listed.memory)).toBe(true);
    const memories = ResourceMemory.remember(
      listed.memories,
      listed.key,
      ResourceMemory.markFullyHandled(listed.memory),
    );
    const relisted = ResourceMemory.recall(memories, event(null, "u1"));
    expect(ResourceMemory.isInitial(relisted.memory)).toBe(false);
  });

  it("forgets on DELETED but still returns the memory for that event", () => {
    const listed = ResourceMemory.recall(ResourceMemory.empty(), event(null, "u1"));
    const deleted = ResourceMemory.recall(listed.memories, event("DELETED", "u1"));
    expect(deleted.memory).toEqual(listed.memory);
    expect(HashMap.has(deleted.memories, "u1")).toBe(false);
    expect(ResourceMemory.remember(deleted.memories, "u1", deleted.memory)).toBe(deleted.memories);
  });

  it("keys by uid, and objects without uid share the '' key", () => {
    const a = ResourceMemory.recall(ResourceMemory.empty(), event(null));
    expect(a.key).toBe("");
    const b = ResourceMemory.recall(a.memories, event("ADDED"));
    expect(b.memory).toEqual(a.memory);
    const c = ResourceMemory.recall(b.memories, event("ADDED", "u2"));
    expect(c.memory.noticedByListing).toBe(false);
    expect(HashMap.size(c.memories)).toBe(2);
  });

  it("property: recall never throws and only DELETED removes", () => {
    const type = fc.constantFrom<RawEventType | null>(null, "ADDED", "MODIFIED", "DELETED");
    fc.assert(
      fc.property(fc.array(fc.tuple(type, fc.anything())), (events) => {
        let memories = ResourceMemory.empty();
        for (const [t, object] of events) {
          const recalled = ResourceMemory.recall(memories, { type: t, object: object as RawEvent["object"] });
          expect(HashMap.has(recalled.memories, recalled.key)).toBe(t !== "DELETED");
          memories = recalled.memories;
        }
      }),
    );
  });
});
