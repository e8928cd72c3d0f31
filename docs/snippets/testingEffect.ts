/** docs/guide/testing.md: an operator test in virtual time with Effect, with injected API failures. */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { EmulatorCommand, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { Operating } from "@kopf/engines";
import { Clusters, KopfRunner } from "@kopf/testing";
import { Effect } from "effect";
import { TestClock } from "effect/testing";
import * as kopf from "kopf";

const crd = join(dirname(fileURLToPath(import.meta.url)), "../../crd.yaml");

/** Lets virtual time pass in small steps, so that every fiber gets to run in between. */
const settle = (seconds: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < seconds * 10; i++) {
      for (let j = 0; j < 30; j++) yield* Effect.yieldNow;
      yield* TestClock.adjust("100 millis");
    }
  });

it.effect("retries a handler after its TemporaryError, in virtual time", () =>
  Effect.gen(function* () {
    const registry = kopf.Registry.make();
    let attempts = 0;
    registry.on.create("kopfexamples", function flaky() {
      attempts += 1;
      if (attempts === 1) throw new kopf.TemporaryError("not yet", { delay: 600 });
      return { attempts };
    });

    const emulator = yield* KubeEmulator;
    yield* emulator.apply(yield* EmulatorCommand.readObjects(crd));
    const faults = yield* FaultInjector;
    yield* faults.injectFailure({ status: 503, verb: "patch", times: 2 }); // the API fails twice
    yield* Effect.forkScoped(Operating.run({ registry, namespaces: ["default"], standalone: true }));
    yield* settle(1);

    const api = yield* KubeApi;
    const where = { name: "ex1", namespace: "default" };
    const body = { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: where };
    yield* api.create(KopfRunner.kopfExamples, body, { namespace: "default" });
    yield* settle(5);
    assert.strictEqual(attempts, 1);
    yield* settle(600); // ten virtual minutes pass in milliseconds
    const handled = yield* api.get(KopfRunner.kopfExamples, where);
    assert.deepStrictEqual(handled.status?.flaky, { attempts: 2 });
  }).pipe(Effect.scoped, Effect.provide(Clusters.inProcess())),
);
