/**
 * Handler values: the effective errors mode per kind (docs/behaviour/registration.md#options effective defaults) and the handler
 * names used in log lines (docs/behaviour/registration.md#handler-ids).
 */
import { assert, describe, it } from "@effect/vitest";
import { Handler, Registry } from "../src/index.ts";
import { SPEC } from "./fixtures/causes.ts";

function fn() {}

const one = (register: (r: Registry.Registry) => void) => {
  const r = Registry.make();
  register(r);
  return [...r.activities, ...r.changing, ...r.watching, ...r.indexing, ...r.spawning, ...r.webhooks][0]!;
};

describe("effectiveErrors and describe", () => {
  it.each([
    ["startup", (r: Registry.Registry) => r.on.startup(fn), "temporary", "Activity 'fn'"],
    ["create", (r: Registry.Registry) => r.on.create(SPEC, fn), "temporary", "Handler 'fn'"],
    ["event", (r: Registry.Registry) => r.on.event(SPEC, fn), "ignored", "Handler 'fn'"],
    ["index", (r: Registry.Registry) => r.on.index(SPEC, fn), "ignored", "Indexer 'fn'"],
    ["daemon", (r: Registry.Registry) => r.on.daemon(SPEC, fn), "temporary", "Daemon 'fn'"],
    ["timer", (r: Registry.Registry) => r.on.timer(SPEC, fn), "temporary", "Timer 'fn'"],
    ["validate", (r: Registry.Registry) => r.on.validate(SPEC, fn), "permanent", "Webhook 'fn'"],
  ] as const)("%s", (_name, register, errors, title) => {
    const handler = one(register);
    assert.strictEqual(Handler.effectiveErrors(handler), errors);
    assert.strictEqual(Handler.describe(handler), title);
  });

  it("an explicit errors mode wins", () => {
    assert.strictEqual(
      Handler.effectiveErrors(one((r) => r.on.index(SPEC, { errors: "permanent" }, fn))),
      "permanent",
    );
  });
});
