/**
 * Daemons end to end in virtual time (docs/behaviour/daemons-timers.md#common-rules, docs/behaviour/daemons-timers.md#daemons, docs/behaviour/daemons-timers.md#stopping-on-deletion, docs/behaviour/daemons-timers.md#filter-mismatch-and-pausing, docs/behaviour/daemons-timers.md#operator-exit): spawned once per object, the
 * live body, their own patches and results applied after each run, a daemon finishing on its
 * own is never respawned, deletion stops it (flag first; cancellation after the backoff or
 * timeout) and the finalizer is released only after it exited; filter mismatch stops and a new
 * match respawns; operator exit stops every daemon; `stopped` is an `AbortSignal`.
 */
import { assert, describe, it } from "@effect/vitest";
import { type DaemonContext, Registry } from "@kopf/registry";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Daemons from "../src/Daemons.ts";
import * as H from "./fixtures/Harness.ts";

const withDaemons = (registry: Registry.Registry<any>) =>
  Effect.gen(function* () {
    const daemons = yield* Daemons.make;
    const operator = yield* H.start(registry, { engines: { spawning: daemons.spawning } });
    return { daemons, operator };
  });

/** Starts the operator, creates `e1`, lets its daemons spawn, and deletes it. */
const startThenDelete = (registry: Registry.Registry<any>) =>
  Effect.gen(function* () {
    yield* withDaemons(registry);
    yield* H.create("e1");
    yield* H.settle(1);
    yield* H.remove("e1");
  });

describe("daemons", () => {
  it.effect("run per object with a live body; their patches are applied after every run", () =>
    H.run(() =>
      Effect.gen(function* () {
        const seen: Array<unknown> = [];
        const registry = Registry.make();
        registry.on.daemon(H.RES, async function monitor({ spec, stopped, patch }: DaemonContext) {
          let round = 0;
          while (!stopped.isSet()) {
            seen.push(spec.field);
            round += 1;
            (patch as any).status = { rounds: round };
            if (await stopped.wait(10)) break;
          }
        });
        yield* withDaemons(registry);
        yield* H.create("e1");
        yield* H.settle(1);
        yield* H.patch("e1", { spec: { field: "changed" } });
        yield* H.settle(10);
        assert.deepStrictEqual(seen.slice(0, 2), ["value", "changed"]);
      }),
    ),
  );

  it.effect("stopped is an AbortSignal (by type and at run time): APIs handed it end on deletion", () =>
    H.run(() =>
      Effect.gen(function* () {
        const seen: Array<unknown> = [];
        const registry = Registry.make();
        registry.on.daemon(H.RES, async function listener({ stopped }: DaemonContext) {
          const signal: AbortSignal = stopped; // what fetch(url, { signal: stopped }) takes
          seen.push(signal.aborted);
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          seen.push(signal.aborted, [...(stopped.reason ?? [])]);
        });
        yield* startThenDelete(registry);
        yield* H.settle(1);
        assert.deepStrictEqual(seen, [false, true, ["resource-deleted"]]);
        assert.isUndefined(yield* H.get("e1"));
      }),
    ),
  );

  it.effect("a daemon returning is not restarted; its result goes to status", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        let calls = 0;
        const registry = Registry.make();
        registry.on.daemon(H.RES, function once() {
          calls += 1;
          return { done: true };
        });
        const { daemons } = yield* withDaemons(registry);
        yield* H.create("e1");
        yield* H.settle(2);
        yield* H.patch("e1", { spec: { field: "again" } });
        yield* H.settle(2);
        assert.strictEqual(calls, 1);
        const body = yield* H.get("e1");
        assert.deepStrictEqual((body?.status as any)?.once, { done: true });
        assert.isTrue(
          H.logged(lines, "Daemon 'once' has exited on its own and will not be retried or restarted."),
        );
        assert.strictEqual(daemons.running().size, 0);
        // Stopped forever: no finalizer is needed for it any more.
        assert.notInclude(body?.metadata?.finalizers ?? [], H.FINALIZER);
      }),
    ),
  );

  it.effect("deletion: the finalizer is held until a cooperative daemon exits", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        const reasons: Array<string> = [];
        const registry = Registry.make();
        registry.on.daemon(H.RES, async function worker({ stopped }: DaemonContext) {
          await stopped.wait();
          reasons.push(...(stopped.reason ?? []));
        });
        yield* withDaemons(registry);
        yield* H.create("e1");
        yield* H.settle(1);
        assert.include((yield* H.get("e1"))?.metadata?.finalizers ?? [], H.FINALIZER);
        yield* H.remove("e1");
        yield* H.settle(2);
        assert.deepStrictEqual(reasons, ["resource-deleted"]);
        assert.isUndefined(yield* H.get("e1"));
        assert.isTrue(H.logged(lines, "Daemon 'worker' has exited on request"));
      }),
    ),
  );

  it.effect("deletion: a daemon ignoring the flag is cancelled after the backoff, within its timeout", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.daemon(H.RES, { cancellationBackoff: 5, cancellationTimeout: 10 }, function stubborn() {
          return Effect.never;
        });
        yield* startThenDelete(registry);
        yield* H.settle(4);
        // Still within the backoff: signalled only; the object is kept by its finalizer.
        assert.isDefined(yield* H.get("e1"));
        assert.isTrue(H.logged(lines, "Daemon 'stubborn' is signalled to exit gracefully."));
        yield* H.settle(3);
        // After the backoff: cancelled (an Effect daemon is interrupted), the finalizer released.
        assert.isTrue(H.logged(lines, "Daemon 'stubborn' is signalled to exit by force."));
        assert.isUndefined(yield* H.get("e1"));
        assert.isFalse(H.logged(lines, "Leaving it orphaned"));
      }),
    ),
  );

  it.effect("deletion: an async daemon is cancelled at once with a timeout but no backoff", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.daemon(H.RES, { cancellationTimeout: 3 }, function hung() {
          return new Promise(() => undefined);
        });
        yield* startThenDelete(registry);
        yield* H.settle(1);
        assert.isTrue(H.logged(lines, "Daemon 'hung' is signalled to exit by force."));
        assert.isUndefined(yield* H.get("e1"));
      }),
    ),
  );

  it.effect("deletion: a daemon that cannot be cancelled is abandoned after the timeout", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.daemon(H.RES, { cancellationTimeout: 3 }, function hung() {
          return Effect.uninterruptible(Effect.sleep("8 seconds"));
        });
        yield* startThenDelete(registry);
        yield* H.settle(2);
        assert.isDefined(yield* H.get("e1"));
        yield* H.settle(2);
        assert.isTrue(H.logged(lines, "Daemon 'hung' did not exit in time. Leaving it orphaned."));
        assert.isUndefined(yield* H.get("e1"));
        yield* H.settle(5);
      }),
    ),
  );

  it.effect("deletion without a timeout: the stopping daemon is polled", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.on.daemon(H.RES, { cancellationPolling: 5 }, function slow({ stopped }: DaemonContext) {
          // Its own clean-up after the stop request takes 7 (virtual) seconds.
          return Effect.andThen(stopped.await(), Effect.sleep("7 seconds"));
        });
        yield* startThenDelete(registry);
        yield* H.settle(1);
        assert.isTrue(H.logged(lines, "Daemon 'slow' is still exiting. The next check is in 5 seconds."));
        yield* H.settle(4.5);
        assert.isDefined(yield* H.get("e1"));
        yield* H.settle(6);
        assert.isUndefined(yield* H.get("e1"));
      }),
    ),
  );

  it.effect("filter mismatch stops the daemon; matching again respawns it", () =>
    H.run((lines) =>
      Effect.gen(function* () {
        let spawned = 0;
        const reasons: Array<string> = [];
        const registry = Registry.make();
        registry.on.daemon(
          H.RES,
          { labels: { run: "yes" } },
          async function picky({ stopped }: DaemonContext) {
            spawned += 1;
            await stopped.wait();
            reasons.push(...(stopped.reason ?? []));
          },
        );
        const { daemons } = yield* withDaemons(registry);
        yield* H.create("e1", { field: "x" }, { run: "yes" });
        yield* H.settle(1);
        assert.strictEqual(spawned, 1);
        yield* H.patch("e1", { metadata: { labels: { run: "no" } } });
        yield* H.settle(1);
        assert.deepStrictEqual(reasons, ["filters-mismatch"]);
        assert.strictEqual(daemons.running().size, 0);
        yield* H.patch("e1", { metadata: { labels: { run: "yes" } } });
        yield* H.settle(1);
        assert.strictEqual(spawned, 2);
        assert.isFalse(H.logged(lines, "exited on its own"));
      }),
    ),
  );

  it.effect("operator exit stops every daemon with operator-exiting", () =>
    H.run(() =>
      Effect.gen(function* () {
        const reasons: Array<string> = [];
        const registry = Registry.make();
        registry.on.daemon(H.RES, async function worker({ stopped }: DaemonContext) {
          await stopped.wait();
          reasons.push(...(stopped.reason ?? []));
        });
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* withDaemons(registry);
            yield* H.create("e1");
            yield* H.create("e2");
            yield* H.settle(1);
          }),
        );
        yield* H.settle(1);
        assert.deepStrictEqual(reasons, ["operator-exiting", "operator-exiting"]);
      }),
    ),
  );

  it.effect("the initial delay (a number or a callback of the object) comes before the first run", () =>
    H.run(() =>
      Effect.gen(function* () {
        const starts: Array<number> = [];
        const registry = Registry.make();
        registry.on.daemon(H.RES, { initialDelay: ({ spec }) => Number(spec.delay) }, function delayed() {
          return Effect.map(Clock.currentTimeMillis, (ms) => {
            starts.push(ms);
          });
        });
        yield* withDaemons(registry);
        const created = yield* Clock.currentTimeMillis;
        yield* H.create("e1", { delay: 7 });
        yield* H.settle(6);
        assert.deepStrictEqual(starts, []);
        yield* H.settle(2);
        assert.strictEqual(starts.length, 1);
        assert.approximately(((starts[0] ?? 0) - created) / 1000, 7, 0.5);
      }),
    ),
  );
});
