/**
 * CyclePlan: the instructions of one processing cycle, traced against a real registry's handlers
 * and a script of what the interpreter observes, as tables — Kopf's reason-detection matrix
 * (event type × finalizers × deletion × stored essence) carried through the plan, then every
 * cause × the changing handlers' outcome × the finalizer's state × the consistency state, and the
 * engine seams (indexing, ownership, fencing), a conflict carried over and an undecodable
 * diff-base.
 */
import { describe, expect, it } from "@effect/vitest";
import { FIN, type Scene, type Script, summary } from "./internal/cycles.ts";

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
            ours ? "run:delete[d] diff-base handled finalizer:remove apply" : "log:free apply",
          ]);
          continue;
        }
        for (const stored of ["none", "same", "other"] as const) {
          const reason = stored === "none" ? "create" : stored === "same" ? "noop" : "update";
          const handled =
            reason === "noop" ? "log:noop apply" : `run:${reason}[${reason[0]}] diff-base handled apply`;
          table.push([
            `${where}, stored ${stored} ⇒ ${reason}`,
            { setup: "cud", type, finalizers, deletion, stored },
            ours ? handled : "finalizer:add apply",
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
    ["create, done", { setup: "cud", ...HELD, stored: "none" }, {}, "run:create[c] diff-base handled apply"],
    [
      "create, nothing left to run",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "skipped" },
      "run:create[c] diff-base handled apply",
    ],
    [
      "create, retrying in 60 s",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending", changedDelays: [60] },
      "run:create[c] apply(60)",
    ],
    [
      "create, pending without a delay",
      { setup: "cud", ...HELD, stored: "none" },
      { changed: "pending" },
      "run:create[c] apply",
    ],
    ["create, finalizer needed: added first", { setup: "cud", stored: "none" }, {}, "finalizer:add apply"],
    [
      "create, finalizer not needed and absent",
      { setup: "cu", stored: "none" },
      {},
      "run:create[c] diff-base handled apply",
    ],
    [
      "create, finalizer not needed but held: removed first",
      { setup: "cu", ...HELD, stored: "none" },
      {},
      "finalizer:remove apply",
    ],
    [
      "create, own echo awaited and arrived",
      { setup: "cud", ...HELD, stored: "none", consistency: "awaited" },
      {},
      "wait run:create[c] diff-base handled apply",
    ],
    [
      "create, own echo awaited, a new event cut the wait short",
      { setup: "cud", ...HELD, stored: "none", consistency: "awaited" },
      { sleptFully: false },
      "wait apply",
    ],
    [
      "create, own echo awaited with on.event results in the patch: inconsistent, no wait",
      { setup: "event", ...HELD, stored: "none", consistency: "awaited" },
      { eventResults: true },
      "watch apply",
    ],
    [
      "create, on.event results without an awaited echo: consistent",
      { setup: "event", ...HELD, stored: "none" },
      { eventResults: true },
      "watch run:create[c] diff-base handled apply",
    ],
    [
      "create with a patch carried over: inconsistent",
      { setup: "cud", ...HELD, stored: "none", consistency: "carried" },
      {},
      "apply",
    ],
    [
      "create, finalizer added while an echo is awaited: no wait",
      { setup: "cud", stored: "none", consistency: "awaited" },
      {},
      "finalizer:add apply",
    ],
    // update
    ["update, done", { setup: "cud", ...HELD, stored: "other" }, {}, "run:update[u] diff-base handled apply"],
    [
      "update, retrying",
      { setup: "cud", ...HELD, stored: "other" },
      { changed: "pending", changedDelays: [5, 2] },
      "run:update[u] apply(2)",
    ],
    [
      "update, awaited, cut short",
      { setup: "cud", ...HELD, stored: "other", consistency: "awaited" },
      { sleptFully: false },
      "wait apply",
    ],
    // delete
    [
      "delete, done: released",
      { setup: "cud", ...DELETING },
      {},
      "run:delete[d] diff-base handled finalizer:remove apply",
    ],
    [
      "delete, retrying: held",
      { setup: "cud", ...DELETING },
      { changed: "pending", changedDelays: [30] },
      "run:delete[d] apply(30)",
    ],
    [
      "delete, pending without a delay: held",
      { setup: "cud", ...DELETING },
      { changed: "pending" },
      "run:delete[d] apply",
    ],
    [
      "delete, done, daemons still stopping: held",
      { setup: "daemon", ...DELETING },
      { spawnedDelays: [1] },
      "spawn run:delete[d] diff-base handled apply(1)",
    ],
    [
      "delete, done, daemons stopped: released",
      { setup: "daemon", ...DELETING },
      {},
      "spawn run:delete[d] diff-base handled finalizer:remove apply",
    ],
    [
      "delete on a carried patch: neither run nor released",
      { setup: "cud", ...DELETING, consistency: "carried" },
      {},
      "apply",
    ],
    [
      "delete, awaited, cut short: neither run nor released",
      { setup: "cud", ...DELETING, consistency: "awaited" },
      { sleptFully: false },
      "wait apply",
    ],
    [
      "delete, awaited and arrived",
      { setup: "cud", ...DELETING, consistency: "awaited" },
      {},
      "wait run:delete[d] diff-base handled finalizer:remove apply",
    ],
    [
      "delete with an optional on.delete: finalizer removed, the handler not run",
      { setup: "optional", ...DELETING },
      {},
      "finalizer:remove apply",
    ],
    // gone, free, noop, resume, stealth
    [
      "gone while an echo is awaited: no wait",
      { setup: "cud", ...DELETING, type: "DELETED", consistency: "awaited" },
      {},
      "log:gone gone",
    ],
    ["free", { setup: "cud", finalizers: ["other"], deletion: "2020-12-31T23:59:59Z" }, {}, "log:free apply"],
    ["noop", { setup: "cud", ...HELD }, {}, "log:noop apply"],
    [
      "resume after a restart",
      { setup: "event", ...HELD, type: null, listed: true },
      {},
      "watch run:resume[r] diff-base handled apply",
    ],
    [
      "stealth: no handler prematches, the unneeded finalizer is removed",
      { setup: "stealth", ...HELD },
      {},
      "finalizer:remove apply",
    ],
    ["stealth, nothing held: only the patch (empty) is applied", { setup: "stealth" }, {}, "apply"],
    [
      "a daemon stopped forever no longer needs the finalizer",
      { setup: "daemon", ...HELD, stored: "none" },
      { excluded: ["dm"] },
      "spawn run:create[c] diff-base handled apply",
    ],
    // engine seams, conflicts, failures
    [
      "indexed and owned",
      { setup: "cud", ...HELD, stored: "none", engines: { indexing: true, ownership: true } },
      {},
      "index claim run:create[c] diff-base handled fence apply",
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
      "claim run:create[c] diff-base handled fence warn fenced",
    ],
    [
      "a conflict: the pending functions are carried to the next cycle",
      { setup: "cud", stored: "none" },
      { conflict: true },
      "finalizer:add apply carry",
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
