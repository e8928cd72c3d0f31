/**
 * CyclePlan: the instructions of one processing cycle, traced against a real registry's handlers
 * and a script of what the interpreter observes, as tables — Kopf's reason-detection matrix
 * (event type × finalizers × deletion × stored essence) carried through the plan, then every
 * cause × the changing handlers' outcome × the finalizer's state × the consistency state, and the
 * engine seams (indexing, ownership, fencing), the patch's outcomes (conflict carried over,
 * invalid reported, gone), the sleep for the earliest delay and the touch, and an undecodable
 * diff-base.
 */
import { describe, expect, it } from "@effect/vitest";
import { CyclePlan } from "../src/index.ts";
import { answer, cycleOf, FIN, NEWER_VERSION, type Scene, type Script, summary } from "./internal/cycles.ts";

const OTHERS = ["irrelevant", "another"];
const MIXED = ["irrelevant", FIN, "another"];

describe("CyclePlan: the reason-detection matrix through the plan", () => {
  // The setup needs the finalizer (a mandatory on.delete); every handler succeeds at once.
  const table: Array<readonly [string, Scene, string]> = [];
  for (const finalizers of [undefined, [FIN], OTHERS, MIXED]) {
    const ours = finalizers?.includes(FIN) === true;
    for (const deletion of [undefined, null, "2020-12-31T23:59:59Z"]) {
      const deleting = typeof deletion === "string";
      // DELETED: gone, whatever the rest; the finalizer is added (Kopf does so too) but nothing is applied.
      table.push([
        `DELETED, finalizers ${JSON.stringify(finalizers)}, deletion ${deletion}`,
        { setup: "cud", type: "DELETED", finalizers, deletion },
        !ours && !deleting ? "finalizer:add gone" : "log:gone gone",
      ]);
      for (const type of ["ADDED", "MODIFIED"] as const) {
        const where = `${type}, finalizers ${JSON.stringify(finalizers)}, deletion ${deletion}`;
        if (deleting) {
          table.push([
            `${where} ⇒ ${ours ? "delete" : "free"}`,
            { setup: "cud", type, finalizers, deletion },
            ours ? "run:delete[d] diff-base handled finalizer:remove patch" : "log:free patch",
          ]);
          continue;
        }
        for (const stored of ["none", "same", "other"] as const) {
          const reason = stored === "none" ? "create" : stored === "same" ? "noop" : "update";
          const handled =
            reason === "noop" ? "log:noop patch" : `run:${reason}[${reason[0]}] diff-base handled patch`;
          table.push([
            `${where}, stored ${stored} ⇒ ${reason}`,
            { setup: "cud", type, finalizers, deletion, stored },
            ours ? handled : "finalizer:add patch",
          ]);
        }
      }
    }
  }

  it.each(table)("%s", (_, scene, expected) => {
    expect(summary(scene)).toBe(expected);
  });
});

describe("CyclePlan: cause × handler outcome × finalizer × consistency", () => {
  const HELD = { finalizers: [FIN] };
  const DELETING = { finalizers: [FIN], deletion: "2020-12-31T23:59:59Z" };
  const table: ReadonlyArray<readonly [string, Scene, Script, string]> = [
    // create
    ["create, done", { setup: "cud", ...HELD, stored: "none" }, {}, "run:create[c] diff-base handled patch"],
    [
      "create, nothing left to run",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "skipped" },
      "run:create[c] diff-base handled patch",
    ],
    [
      "create, retrying in 60 s",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [60] },
      "run:create[c] patch skip(60)",
    ],
    [
      "create, pending without a delay",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending" },
      "run:create[c] patch",
    ],
    ["create, finalizer needed: added first", { setup: "cud", stored: "none" }, {}, "finalizer:add patch"],
    [
      "create, finalizer not needed and absent",
      { setup: "cu", stored: "none" },
      {},
      "run:create[c] diff-base handled patch",
    ],
    [
      "create, finalizer not needed but held: removed first",
      { setup: "cu", ...HELD, stored: "none" },
      {},
      "finalizer:remove patch",
    ],
    [
      "create, own echo awaited, not in time, a re-read finds nothing newer: consistent",
      { setup: "cud", ...HELD, stored: "none", consistency: "awaited" },
      {},
      "wait refresh run:create[c] diff-base handled patch",
    ],
    [
      "create, own echo awaited, not in time, a re-read finds a newer state: stale, no handler",
      { setup: "cud", ...HELD, stored: "none", consistency: "awaited" },
      { refreshed: "newer" },
      "wait refresh patch",
    ],
    [
      "create, own echo awaited, not in time, the re-read fails: consistency assumed",
      { setup: "cud", ...HELD, stored: "none", consistency: "awaited" },
      { refreshed: "failed" },
      "wait refresh run:create[c] diff-base handled patch",
    ],
    [
      "create, own echo awaited, a new event cut the wait short",
      { setup: "cud", ...HELD, stored: "none", consistency: "awaited" },
      { sleptFully: false },
      "wait patch",
    ],
    [
      "create, own echo awaited with on.event results in the patch: inconsistent, no wait",
      { setup: "event", ...HELD, stored: "none", consistency: "awaited" },
      { eventResults: true },
      "watch patch",
    ],
    [
      "create, on.event results without an awaited echo: consistent",
      { setup: "event", ...HELD, stored: "none" },
      { eventResults: true },
      "watch run:create[c] diff-base handled patch",
    ],
    [
      "create with a patch carried over: inconsistent",
      { setup: "cud", ...HELD, stored: "none", consistency: "carried" },
      {},
      "patch",
    ],
    [
      "create, finalizer added while an echo is awaited: no wait",
      { setup: "cud", stored: "none", consistency: "awaited" },
      {},
      "finalizer:add patch",
    ],
    // update
    ["update, done", { setup: "cud", ...HELD, stored: "other" }, {}, "run:update[u] diff-base handled patch"],
    [
      "update, retrying",
      { setup: "cud", ...HELD, stored: "other" },
      { changed: "pending", changedDelays: [5, 2] },
      "run:update[u] patch skip(2)",
    ],
    [
      "update, awaited, cut short",
      { setup: "cud", ...HELD, stored: "other", consistency: "awaited" },
      { sleptFully: false },
      "wait patch",
    ],
    // delete
    [
      "delete, done: released",
      { setup: "cud", ...DELETING },
      {},
      "run:delete[d] diff-base handled finalizer:remove patch",
    ],
    [
      "delete, retrying: held",
      { setup: "cud", ...DELETING },
      { changed: "pending", changedDelays: [30] },
      "run:delete[d] patch skip(30)",
    ],
    [
      "delete, pending without a delay: held",
      { setup: "cud", ...DELETING },
      { changed: "pending" },
      "run:delete[d] patch",
    ],
    [
      "delete, done, daemons still stopping: held",
      { setup: "daemon", ...DELETING },
      { spawnedDelays: [1] },
      "spawn run:delete[d] diff-base handled patch skip(1)",
    ],
    [
      "delete, done, daemons stopped: released",
      { setup: "daemon", ...DELETING },
      {},
      "spawn run:delete[d] diff-base handled finalizer:remove patch",
    ],
    [
      "delete on a carried patch: neither run nor released",
      { setup: "cud", ...DELETING, consistency: "carried" },
      {},
      "patch",
    ],
    [
      "delete, awaited, cut short: neither run nor released",
      { setup: "cud", ...DELETING, consistency: "awaited" },
      { sleptFully: false },
      "wait patch",
    ],
    [
      "delete, awaited, not in time, a re-read finds nothing newer",
      { setup: "cud", ...DELETING, consistency: "awaited" },
      {},
      "wait refresh run:delete[d] diff-base handled finalizer:remove patch",
    ],
    [
      "delete, awaited, not in time, a re-read finds a newer state: the finalizer stays",
      { setup: "cud", ...DELETING, consistency: "awaited" },
      { refreshed: "newer" },
      "wait refresh patch",
    ],
    [
      "delete with an optional on.delete: finalizer removed, the handler not run",
      { setup: "optional", ...DELETING },
      {},
      "finalizer:remove patch",
    ],
    // gone, free, noop, resume, stealth
    [
      "gone while an echo is awaited: no wait",
      { setup: "cud", ...DELETING, type: "DELETED", consistency: "awaited" },
      {},
      "log:gone gone",
    ],
    ["free", { setup: "cud", finalizers: ["other"], deletion: "2020-12-31T23:59:59Z" }, {}, "log:free patch"],
    ["noop", { setup: "cud", ...HELD }, {}, "log:noop patch"],
    [
      "resume after a restart",
      { setup: "event", ...HELD, type: null, listed: true },
      {},
      "watch run:resume[r] diff-base handled patch",
    ],
    [
      "stealth: no handler prematches, the unneeded finalizer is removed",
      { setup: "stealth", ...HELD },
      {},
      "finalizer:remove patch",
    ],
    ["stealth, nothing held: only the patch (empty) is applied", { setup: "stealth" }, {}, "patch"],
    [
      "a daemon stopped forever no longer needs the finalizer",
      { setup: "daemon", ...HELD, stored: "none" },
      { excluded: ["dm"] },
      "spawn run:create[c] diff-base handled patch",
    ],
    // engine seams, conflicts, failures
    [
      "indexed and owned",
      { setup: "cud", ...HELD, stored: "none", engines: { indexing: true, ownership: true } },
      {},
      "index claim run:create[c] diff-base handled fence patch",
    ],
    [
      "indexed, owned by another replica",
      { setup: "cud", ...HELD, stored: "none", engines: { indexing: true, ownership: true } },
      { claimed: false },
      "index claim notowned",
    ],
    [
      "ownership lost during the handling: fenced, nothing applied",
      { setup: "cud", ...HELD, stored: "none", engines: { indexing: false, ownership: true } },
      { holds: false },
      "claim run:create[c] diff-base handled fence warning fenced",
    ],
    [
      "a conflict: the pending functions are carried to the next cycle",
      { setup: "cud", stored: "none" },
      { patched: "Conflict" },
      "finalizer:add patch carry",
    ],
    [
      "an invalid patch: an error line and a Warning event, nothing carried",
      { setup: "cud", stored: "none" },
      { patched: "Invalid" },
      "finalizer:add patch error post:InvalidPatch",
    ],
    [
      "the object is gone when patched: no sleep, no touch",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [60], patched: "Gone" },
      "run:create[c] patch",
    ],
    [
      "nothing to patch with a delay: sleep, then touch",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [60], patched: "NothingToPatch" },
      "run:create[c] patch sleep(60) touch",
    ],
    [
      "nothing to patch with a long delay: the sleep is capped at 600 s",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [900], patched: "NothingToPatch" },
      "run:create[c] patch sleep(600) touch",
    ],
    [
      "nothing to patch, the sleep cut short by a new event: no touch",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [60], patched: "NothingToPatch", wokeEarly: true },
      "run:create[c] patch sleep(60) interrupted",
    ],
    [
      "nothing to patch with a zero delay: touched at once",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [0], patched: "NothingToPatch" },
      "run:create[c] patch touch",
    ],
    [
      "a patch sent with a zero delay: its own event brings the next cycle",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [0] },
      "run:create[c] patch",
    ],
    [
      "an undecodable diff-base fails the cycle after the on.event handlers",
      { setup: "event", ...HELD, corrupt: true },
      {},
      "watch fail",
    ],
  ];

  it.each(table)("%s", (_, scene, script, expected) => {
    expect(summary(scene, script)).toBe(expected);
  });
});

describe("CyclePlan: what a cycle awaits after a re-read", () => {
  const HELD_CREATE: Scene = { setup: "cud", finalizers: [FIN], stored: "none", consistency: "awaited" };
  const awaited = (scene: Scene, script: Script) => {
    const cycle = cycleOf(scene);
    const last = CyclePlan.trace(cycle.facts, answer(cycle, script)).at(-1);
    return last?._tag === "Finish" && last.outcome._tag === "Applied" ? last.outcome.resourceVersion : "none";
  };

  it.each<[string, Script, string | null | undefined]>([
    ["nothing newer, the handlers' patch applied: its version", {}, "2"],
    ["nothing newer, nothing to patch: nothing awaited any more", { patched: "NothingToPatch" }, null],
    [
      "a newer state, nothing to patch: the newer version",
      { refreshed: "newer", patched: "NothingToPatch" },
      NEWER_VERSION,
    ],
    [
      "the re-read failed, nothing to patch: nothing awaited any more",
      { refreshed: "failed", patched: "NothingToPatch" },
      null,
    ],
    [
      "no re-read (a new event cut the wait short): unchanged",
      { sleptFully: false, patched: "NothingToPatch" },
      undefined,
    ],
  ])("%s", (_, script, expected) => {
    expect(awaited(HELD_CREATE, script)).toEqual(expected);
  });
});
