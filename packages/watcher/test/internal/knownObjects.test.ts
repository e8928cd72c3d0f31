// Covers the known-objects tracker behind synthetic deletions: events and listed items are
// remembered as skeletons, DELETED forgets, a relisting reports exactly the objects known before
// and not listed again, and nothing is reported outside a listing or twice.

import { assert, describe, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import fc from "fast-check";
import * as KnownObjects from "../../src/internal/knownObjects.ts";

const body = (name: string, extra: Record<string, string> = {}): RawBody => ({
  apiVersion: "v1",
  kind: "Thing",
  metadata: { name, uid: `uid-${name}`, resourceVersion: "1", labels: { a: "b" }, ...extra },
  spec: { big: "x".repeat(100) },
});
const names = (bodies: ReadonlyArray<RawBody>) => bodies.map((b) => b.metadata?.name).sort();

describe("KnownObjects", () => {
  it("reports the objects that vanished between listings, as skeletons", () => {
    const known = KnownObjects.make();
    known.listing();
    known.seen(null, body("a"));
    known.seen(null, body("b"));
    assert.deepStrictEqual(known.vanished(), []);
    known.seen("ADDED", body("c"));
    known.seen("DELETED", body("a"));
    known.listing();
    known.seen(null, body("b"));
    const gone = known.vanished();
    assert.deepStrictEqual(gone, [
      { apiVersion: "v1", kind: "Thing", metadata: { name: "c", uid: "uid-c", resourceVersion: "1" } },
    ]);
    assert.strictEqual(known.size(), 1);
    assert.deepStrictEqual(known.vanished(), []);
  });

  it("after a relisting, exactly the listed objects are known", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom("ADDED", "MODIFIED", "DELETED", null),
            fc.constantFrom("a", "b", "c", "d"),
          ),
        ),
        fc.uniqueArray(fc.constantFrom<string>("a", "b", "c", "d")),
        (events, relisted) => {
          const known = KnownObjects.make();
          const alive = new Set<string>();
          for (const [type, name] of events) {
            known.seen(type as "ADDED" | "MODIFIED" | "DELETED" | null, body(name));
            if (type === "DELETED") alive.delete(name);
            else alive.add(name);
          }
          known.listing();
          for (const name of relisted) known.seen(null, body(name));
          const gone = names(known.vanished());
          const expected = [...alive].filter((n) => !relisted.includes(n)).sort();
          return JSON.stringify(gone) === JSON.stringify(expected) && known.size() === relisted.length;
        },
      ),
    );
  });
});
