/**
 * The spawning decision (docs/behaviour/daemons-timers.md) as a table over the object's state ×
 * its runners × the handlers' filters × the handlers stopped forever, and a property: nothing
 * already running is spawned again, nothing stopped forever is spawned, and every runner of a
 * deleted object is stopped.
 */
import { assert, describe, it } from "@effect/vitest";
import { type HandlerCause, Registry } from "@kopf/registry";
import { type RawBody, Resource } from "@kopf/structs";
import fc from "fast-check";
import * as Spawning from "../../src/internal/spawning.ts";

const RESOURCE = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const KIND = "kopfexamples.kopf.dev";

const registry = Registry.make();
registry.on.daemon(KIND, { id: "web", labels: { app: "web" } }, async () => {});
registry.on.timer(KIND, { id: "tick", interval: 1 }, () => {});
const handlers = registry.spawningFor(RESOURCE);

const cause = (labels: Record<string, string>): HandlerCause.SpawningCause =>
  ({
    _tag: "SpawningCause",
    resource: RESOURCE,
    body: { metadata: { name: "e1", labels } } as RawBody,
  }) as HandlerCause.SpawningCause;

/** An action in short: `-id:reason`, `+id`, `pause?ids`, `forget`. */
const word = (a: Spawning.Action): string => {
  switch (a._tag) {
    case "Forget":
      return "forget";
    case "Spawn":
      return `+${a.handler.id}`;
    case "Stop":
      return a.ids.length === 0 ? "" : `-${a.ids.join(",")}:${a.reason}${a.background ? "(bg)" : ""}`;
    case "StopIfPaused":
      return `pause?${a.ids.join(",")}`;
  }
};

const summary = (actions: ReadonlyArray<Spawning.Action>): string =>
  actions
    .map(word)
    .filter((w) => w !== "")
    .join(" ");

describe("Spawning.decide", () => {
  it.each<[string, Partial<Spawning.Input>, Record<string, string>, string]>([
    ["a new matching object: both spawned", {}, { app: "web" }, "+web +tick pause?web,tick"],
    ["a new object matching the timer only", {}, { app: "db" }, "+tick pause?tick"],
    [
      "both running, still matching: nothing new",
      { running: ["web", "tick"] },
      { app: "web" },
      "pause?web,tick",
    ],
    [
      "the daemon's filter no longer matches: stopped",
      { running: ["web", "tick"] },
      { app: "db" },
      "-web:filters-mismatch pause?web,tick",
    ],
    [
      "the daemon finished on its own: not spawned again",
      { forever: new Set(["web"]) },
      { app: "web" },
      "+tick pause?tick",
    ],
    [
      "being deleted: every runner stopped",
      { running: ["web", "tick"], deleting: true },
      { app: "web" },
      "-web,tick:resource-deleted",
    ],
    ["being deleted without runners: nothing", { deleting: true }, { app: "web" }, ""],
    [
      "gone: forgotten, runners stopped in the background",
      { running: ["tick"], gone: true, deleting: true },
      { app: "web" },
      "forget -tick:resource-deleted(bg)",
    ],
  ])("%s", (_, input, labels, expected) => {
    const actions = Spawning.decide({
      gone: false,
      deleting: false,
      handlers,
      cause: cause(labels),
      forever: new Set(),
      running: [],
      ...input,
    });
    assert.strictEqual(summary(actions), expected);
  });

  it("property: never spawns what runs or stopped forever; a deleted object's runners are all stopped", () => {
    const ids = fc.subarray(["web", "tick"]);
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        ids,
        ids,
        fc.constantFrom("web", "db"),
        (gone, deleting, running, forever, app) => {
          const actions = Spawning.decide({
            gone,
            deleting,
            handlers,
            cause: cause({ app }),
            forever: new Set(forever),
            running,
          });
          for (const action of actions) {
            if (action._tag !== "Spawn") continue;
            assert.notInclude(running, action.handler.id);
            assert.notInclude(forever, action.handler.id);
          }
          if (gone || deleting) {
            const stopped = actions.flatMap((a) => (a._tag === "Stop" ? a.ids : []));
            assert.deepStrictEqual(stopped, running);
            assert.isFalse(actions.some((a) => a._tag === "Spawn"));
          }
        },
      ),
    );
  });
});
