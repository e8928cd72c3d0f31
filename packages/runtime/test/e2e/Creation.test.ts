// End to end (docs/behaviour/processing.md#per-event, docs/behaviour/processing.md#cause-order, docs/behaviour/processing.md#changing-causes, docs/behaviour/processing.md#patching, docs/behaviour/processing.md#delays-and-the-touch-dummy, docs/behaviour/processing.md#json-patches, docs/behaviour/handler-context.md#results, docs/behaviour/causes.md#last-handled-configuration), like every file here on the emulator and on a
// real cluster (fixtures/Harness.ts, `Harness.scenario`): a created object is
// handled once by its create handler, which leaves the results in status, the last-handled
// configuration in Kopf's format, no progress annotations, and costs exactly one API write
// (two when an on.delete handler needs the finalizer); updates and field handlers see diffs.
import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import * as Effect from "effect/Effect";
import * as Harness from "../fixtures/Harness.ts";

const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";

describe("creation", () => {
  it.effect("runs the create handler once; results in status; the diff-base stored; one write", () =>
    Harness.scenario(({ lines, log, ns }) =>
      Effect.gen(function* () {
        const registry = Registry.make();
        const calls: Array<string> = [];
        registry.on.create("kopfexamples.kopf.dev", function createFn({ name, logger }) {
          calls.push(String(name));
          logger.info("hello from the handler");
          return { message: "created" };
        });
        yield* Harness.start(registry, { lines, log });
        log.clear();
        yield* Harness.create("e1");
        yield* Harness.settle(3);
        const body = yield* Harness.get("e1");
        assert.deepStrictEqual(calls, ["e1"]);
        assert.deepStrictEqual(body.status, { createFn: { message: "created" } });
        assert.deepStrictEqual(Harness.annotations(body), {
          [LAST_HANDLED]: '{"spec":{"field":"value"}}\n',
        });
        assert.deepStrictEqual(body.metadata?.finalizers, undefined);
        // The status subresource (results) first, then the annotations (marks): two merge
        // patches, as many as Kopf's, in the opposite order.
        assert.deepStrictEqual(
          log.patches().map((w) => `${w.method} ${w.path.split("/").slice(-1)[0]} ${w.contentType}`),
          ["PATCH status application/merge-patch+json", "PATCH e1 application/merge-patch+json"],
        );
        assert.include(lines, `[${ns}/e1] hello from the handler`);
        assert.include(lines, `[${ns}/e1] Handler 'createFn' succeeded.`);
        assert.include(lines, `[${ns}/e1] Creation is processed: 1 succeeded; 0 failed.`);
      }),
    ),
  );
});
