/**
 * The benchmarks' floor operator (bench/floor/operator.ts) is a fair floor only if it leaves the
 * API server in the state `kopf run` leaves it in, with the same writes: run both against the
 * benchmark's emulator over HTTPS with the same objects, and compare each object's writes (its
 * MODIFIED events), its last-handled configuration and its handler result.
 */
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LAST_HANDLED } from "../../bench/internal/client.ts";
import { FLOOR_OPERATOR } from "../../bench/internal/processes.ts";
import * as Session from "../../bench/internal/session.ts";

const root = resolve(import.meta.dirname, "../../../..");
const handlers = join(root, "packages/compat/bench/fixtures/create");
const names = Array.from({ length: 12 }, (_, i) => `object-${i}`);

/** Each object's writes and marks after `cli` handled them all. */
const outcomeOf = (cli: string) =>
  Session.withOperator({ root, peer: "ours", python: undefined, handlers, cli }, async (_op, client) => {
    const counter = await client.countWrites();
    try {
      await client.create(names);
      await counter.settleCreated(names.length, 1_000, 60_000);
      const bodies = await Promise.all(names.map((name) => client.read(name)));
      return names.map((name, i) => ({
        name,
        writes: counter.counts().get(name),
        lastHandled: bodies[i]?.metadata?.annotations?.[LAST_HANDLED],
        result: bodies[i]?.status?.create_fn,
      }));
    } finally {
      await counter.stop();
    }
  });

describe("the floor operator", () => {
  it("makes the writes kopf run makes, and leaves the same marks", { timeout: 180_000 }, async () => {
    const ours = await outcomeOf(join(root, "packages/cli/bin/kopf.js"));
    const floor = await outcomeOf(FLOOR_OPERATOR);
    expect(ours.every((o) => o.writes === 2 && o.result !== undefined && o.lastHandled !== undefined)).toBe(
      true,
    );
    expect(floor).toEqual(ours);
  });
});
