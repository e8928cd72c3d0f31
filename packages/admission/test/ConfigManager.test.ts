/**
 * Managed configurations on the cluster (docs/behaviour/admission.md#managed-configurations): creation tolerates an existing object and
 * fails clearly without permission; every new target replaces the webhooks list; on exit only
 * the persistent handlers' webhooks remain.
 */
import { assert, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { EmulatorTransport, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { Registry } from "@kopf/registry";
import { OperatorSettings, Settings } from "@kopf/settings";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Queue from "effect/Queue";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import { ConfigManager } from "../src/index.ts";
import { RESOURCE, SPEC } from "./fixtures/reviews.ts";

const cluster = EmulatorTransport.client().pipe(
  Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
);

function fn() {}

const options = (): ConfigManager.ManagerOptions => {
  const registry = Registry.make();
  registry.on.validate(SPEC, { id: "kept", persistent: true }, fn);
  registry.on.validate(SPEC, { id: "gone" }, fn);
  return { reason: "validating", name: "cfg.kopf.dev", handlers: registry.webhooks };
};

const VWC = ConfigManager.configurationResource("validating");

describe("ConfigManager", () => {
  it.effect("ensure: creates the configuration; an existing one is fine", () =>
    Effect.gen(function* () {
      const api = yield* KubeApi;
      yield* ConfigManager.ensure(options());
      yield* ConfigManager.ensure(options());
      const body = yield* api.get(VWC, { name: "cfg.kopf.dev" });
      assert.strictEqual(body.metadata?.name, "cfg.kopf.dev");
    }).pipe(Effect.provide(cluster)),
  );

  it.effect("ensure: no permission is a clear error", () =>
    Effect.gen(function* () {
      const faults = yield* FaultInjector;
      yield* faults.injectFailure({
        verb: "create",
        resource: "validatingwebhookconfigurations",
        status: 403,
      });
      // No retries of failed requests (the client retries even 403s by default).
      const settings = Result.getOrThrow(Settings.make({ networking: { errorBackoffs: [] } }));
      const error = yield* Effect.flip(
        ConfigManager.ensure(options()).pipe(Effect.provideService(OperatorSettings, settings)),
      );
      assert.strictEqual(error.reason, "Forbidden");
      assert.include(
        error.message,
        "Not enough RBAC permissions to create the ValidatingWebhookConfiguration cfg.kopf.dev",
      );
    }).pipe(Effect.provide(cluster)),
  );

  it.effect("manage: each target replaces the webhooks; on exit only persistent ones remain", () =>
    Effect.gen(function* () {
      const api = yield* KubeApi;
      const targets = yield* Queue.unbounded<ConfigManager.Target>();
      const fiber = yield* Effect.forkChild(ConfigManager.manage(options(), Stream.fromQueue(targets)));
      const webhooksOf = Effect.map(api.get(VWC, { name: "cfg.kopf.dev" }), (b: any) =>
        (b.webhooks ?? []).map((w: any) => [w.name, w.clientConfig.url, w.rules.length]),
      );
      yield* Queue.offer(targets, { clientConfig: { url: "https://one/p" }, resources: [RESOURCE] });
      const first = yield* Effect.eventually(
        webhooksOf.pipe(Effect.filterOrFail((w) => w.length === 2 && w[0][1] === "https://one/p/kept")),
      );
      assert.deepStrictEqual(first, [
        ["kept.cfg.kopf.dev", "https://one/p/kept", 1],
        ["gone.cfg.kopf.dev", "https://one/p/gone", 1],
      ]);
      yield* Queue.offer(targets, { clientConfig: { url: "https://two/p" }, resources: [] });
      const second = yield* Effect.eventually(
        webhooksOf.pipe(Effect.filterOrFail((w) => w.length === 2 && w[0][1] === "https://two/p/kept")),
      );
      assert.deepStrictEqual(second, [
        ["kept.cfg.kopf.dev", "https://two/p/kept", 0],
        ["gone.cfg.kopf.dev", "https://two/p/gone", 0],
      ]);
      yield* Fiber.interrupt(fiber);
      assert.deepStrictEqual(yield* webhooksOf, [["kept.cfg.kopf.dev", "https://two/p/kept", 0]]);
    }).pipe(Effect.provide(cluster)),
  );
});
