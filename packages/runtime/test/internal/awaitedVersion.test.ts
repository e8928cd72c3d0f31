// Covers the awaited version of an object's worker as a table: which events end the wait, and what
// a cycle's returned version makes of it.
import type { RawEvent } from "@kopf/structs";
import { describe, expect, it } from "vitest";
import { type Awaited, afterCycle, onEvent } from "../../src/internal/awaitedVersion.ts";

const event = (type: RawEvent["type"], resourceVersion?: string): RawEvent =>
  ({
    type,
    object: { metadata: { name: "x", ...(resourceVersion ? { resourceVersion } : {}) } },
  }) as RawEvent;
const awaiting: Awaited = { version: "7", deadline: 5000 };

describe("onEvent", () => {
  it.each<[string, Awaited | undefined, RawEvent, Awaited | undefined]>([
    ["nothing awaited stays so", undefined, event("MODIFIED", "7"), undefined],
    ["the awaited version arrives", awaiting, event("MODIFIED", "7"), undefined],
    ["an older version keeps the wait", awaiting, event("MODIFIED", "6"), awaiting],
    ["another writer's newer version keeps the wait", awaiting, event("MODIFIED", "9"), awaiting],
    ["a deletion ends the wait", awaiting, event("DELETED", "6"), undefined],
    ["an ADDED of the awaited version ends it", awaiting, event("ADDED", "7"), undefined],
    ["an object without a version keeps it", awaiting, event("MODIFIED"), awaiting],
  ])("%s", (_, awaited, incoming, expected) => {
    expect(onEvent(awaited, incoming)).toEqual(expected);
  });
});

describe("afterCycle", () => {
  it.each<[string, Awaited | undefined, string | null | undefined, number, Awaited | undefined]>([
    ["a patch's version is awaited until now + timeout", undefined, "8", 5, { version: "8", deadline: 6000 }],
    ["a newer patch replaces the awaited one", awaiting, "8", 5, { version: "8", deadline: 6000 }],
    ["null: nothing is awaited any more", awaiting, null, 5, undefined],
    ["undefined: the wait stays as it was", awaiting, undefined, 5, awaiting],
    ["timeout 0: versions are not tracked", undefined, "8", 0, undefined],
    ["timeout 0 keeps a carried wait", awaiting, "8", 0, awaiting],
  ])("%s", (_, awaited, version, timeout, expected) => {
    expect(afterCycle(awaited, version, 1000, timeout)).toEqual(expected);
  });
});
