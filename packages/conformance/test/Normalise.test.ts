// Covers normalisation: placeholders by first appearance for uids, versions, generated names and
// continue tokens; list and bookmark versions; timestamps; the run suffix; replacements inside
// strings and keys; and that normalisation is invariant under renaming the server-chosen values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Normalise from "../src/Normalise.ts";

const norm = (body: unknown, run = "r1") => Normalise.value(Normalise.make(run), body);

describe("Normalise.value", () => {
  it("names uids after their objects and numbers each object's versions", () => {
    const n = Normalise.make("r1");
    expect(Normalise.value(n, { metadata: { name: "a", uid: "u-a", resourceVersion: "17" } })).toEqual({
      metadata: { name: "a", uid: "<uid:a>", resourceVersion: "<rv:a@1>" },
    });
    expect(Normalise.value(n, { metadata: { name: "b", uid: "u-b", resourceVersion: "23" } })).toEqual({
      metadata: { name: "b", uid: "<uid:b>", resourceVersion: "<rv:b@1>" },
    });
    expect(Normalise.value(n, { metadata: { name: "a", uid: "u-a", resourceVersion: "30" } })).toEqual({
      metadata: { name: "a", uid: "<uid:a>", resourceVersion: "<rv:a@2>" },
    });
    expect(Normalise.value(n, { metadata: { name: "a", uid: "u-a2", resourceVersion: "31" } })).toEqual({
      metadata: { name: "a", uid: "<uid:a#2>", resourceVersion: "<rv:a#2@1>" },
    });
    expect(Normalise.value(n, { uid: "u-x", resourceVersion: "17" })).toEqual({
      uid: "<uid:1>",
      resourceVersion: "<rv:a@1>",
    });
  });

  it("gives lists and bookmarks their own version placeholders", () => {
    expect(
      norm({ kind: "ConfigMapList", metadata: { resourceVersion: "99", continue: "tok" }, items: [] }),
    ).toEqual({
      kind: "ConfigMapList",
      metadata: { resourceVersion: "<rv:list>", continue: "<continue>" },
      items: [],
    });
    expect(
      norm([{ type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: "5" } } }]),
    ).toEqual([
      { type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: "<rv:bookmark>" } } },
    ]);
  });

  it("replaces timestamps in the known time fields only", () => {
    expect(
      norm({
        metadata: {
          creationTimestamp: "2026-01-01T00:00:00Z",
          managedFields: [{ time: "2026-01-01T00:00:00Z" }],
        },
        data: { time: "2026-01-01T00:00:00Z" },
      }),
    ).toEqual({
      metadata: { creationTimestamp: "<time>", managedFields: [{ time: "<time>" }] },
      data: { time: "<time>" },
    });
    expect(norm({ data: { created: "2026-01-01T00:00:00Z" } })).toEqual({
      data: { created: "2026-01-01T00:00:00Z" },
    });
  });

  it("puts managedFields entries in one order, whatever second each was written in", () => {
    const spec = { manager: "kopf", operation: "Update", apiVersion: "v1", fieldsV1: { "f:spec": {} } };
    const status = { ...spec, subresource: "status", fieldsV1: { "f:status": {} } };
    const other = { ...spec, manager: "kubectl", operation: "Apply" };
    // One server wrote both in one second (ordered by subresource), the other across a second
    // boundary (ordered by time): the same story.
    const sameSecond = norm({
      metadata: {
        managedFields: [
          { ...other, time: "2026-01-01T00:00:00Z" },
          { ...spec, time: "2026-01-01T00:00:01Z" },
          { ...status, time: "2026-01-01T00:00:01Z" },
        ],
      },
    });
    const acrossSeconds = norm({
      metadata: {
        managedFields: [
          { ...other, time: "2026-01-01T00:00:00Z" },
          { ...status, time: "2026-01-01T00:00:01Z" },
          { ...spec, time: "2026-01-01T00:00:02Z" },
        ],
      },
    });
    expect(acrossSeconds).toEqual(sameSecond);
    expect(sameSecond).toEqual({
      metadata: {
        managedFields: [
          { ...other, time: "<time>" },
          { ...spec, time: "<time>" },
          { ...status, time: "<time>" },
        ],
      },
    });
  });

  it("replaces generated names everywhere, also before their definition", () => {
    expect(
      norm({
        message: "configmaps gen-x7k2p is fine",
        metadata: { generateName: "gen-", name: "gen-x7k2p" },
      }),
    ).toEqual({
      message: "configmaps <generated:1> is fine",
      metadata: { generateName: "gen-", name: "<generated:1>" },
    });
  });

  it("replaces the run suffix, known uids (also in keys) and known versions inside strings", () => {
    expect(
      norm({
        metadata: {
          name: "cm-r1",
          uid: "abc-123",
          resourceVersion: "42",
          managedFields: [{ 'k:{"uid":"abc-123"}': {} }],
        },
        message: "uid abc-123 at 42 and not 420 in c-ns-r1",
      }),
    ).toEqual({
      metadata: {
        name: "cm-<run>",
        uid: "<uid:cm-<run>>",
        resourceVersion: "<rv:cm-<run>@1>",
        managedFields: [{ 'k:{"uid":"<uid:cm-<run>>"}': {} }],
      },
      message: "uid <uid:cm-<run>> at <rv:cm-<run>@1> and not 420 in c-ns-<run>",
    });
  });

  it("is the same for two servers that chose different uids and versions for the same story", () => {
    const story = (uids: ReadonlyArray<string>, rvs: ReadonlyArray<number>) => [
      { metadata: { name: "a", uid: uids[0], resourceVersion: String(rvs[0]) } },
      { metadata: { name: "b", uid: uids[1], resourceVersion: String(rvs[1]) } },
      { metadata: { name: "a", uid: uids[0], resourceVersion: String(rvs[2]) } },
    ];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 2, maxLength: 2 }),
        fc.uniqueArray(fc.uuid(), { minLength: 2, maxLength: 2 }),
        fc.uniqueArray(fc.integer({ min: 1000, max: 1_000_000 }), { minLength: 3, maxLength: 3 }),
        fc.uniqueArray(fc.integer({ min: 1000, max: 1_000_000 }), { minLength: 3, maxLength: 3 }),
        (u1, u2, v1, v2) => {
          const a = Normalise.make("r");
          const b = Normalise.make("r");
          expect(story(u1, v1).map((o) => Normalise.value(a, o))).toEqual(
            story(u2, v2).map((o) => Normalise.value(b, o)),
          );
        },
      ),
    );
  });

  it("leaves values without server-chosen parts alone", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom("a", "b", "note"),
          fc.oneof(fc.boolean(), fc.integer(), fc.constant(null)),
        ),
        (data) => {
          expect(norm({ data })).toEqual({ data });
        },
      ),
    );
  });
});
