/**
 * The ngrok tunnel (docs/behaviour/admission.md#servers-and-tunnels): a missing binary is a clear error (nothing is downloaded); an
 * installed one is started for the local insecure server's port and its public URL is reported
 * with the path. A stand-in `ngrok` script plays the binary; the auto server falls back to the
 * local address on an unknown cluster.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import { EmulatorTransport, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { Registry } from "@kopf/registry";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import { type ClientConfig, Serving, WebhookAutoServer, WebhookNgrokTunnel } from "../../src/index.ts";
import { RESOURCE } from "../fixtures/reviews.ts";

const fn = Serving.make({ registry: Registry.make(), resources: () => [RESOURCE], memo: {} });

const firstConfig = <R>(stream: Stream.Stream<ClientConfig, unknown, R>) =>
  Effect.gen(function* () {
    const first = yield* Deferred.make<ClientConfig>();
    yield* Effect.forkScoped(
      Stream.runForEach(stream, (config) => Deferred.succeed(first, config)).pipe(Effect.orDie),
    );
    return yield* Deferred.await(first);
  });

describe("WebhookNgrokTunnel", () => {
  it.live("fails clearly when no ngrok binary is installed", () =>
    Effect.gen(function* () {
      const tunnel = WebhookNgrokTunnel.WebhookNgrokTunnel({ binary: "/nonexistent/ngrok" });
      const error = yield* Effect.flip(Stream.runDrain(tunnel.serve(yield* fn)));
      assert.strictEqual(error.reason, "Tunnel");
      assert.include(error.message, "not installed");
      assert.include(error.message, "never downloaded");
    }),
  );

  it.live("runs the installed binary for the local port and reports its public URL", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "kopf-ngrok-"));
        const args = join(dir, "args");
        const script = join(dir, "ngrok");
        writeFileSync(
          script,
          `#!/bin/sh\necho "$@" > ${JSON.stringify(args)}\necho '{"lvl":"info","msg":"started tunnel","url":"https://abc.ngrok.example"}'\nexec sleep 60\n`,
        );
        chmodSync(script, 0o755);
        const tunnel = WebhookNgrokTunnel.WebhookNgrokTunnel({
          binary: script,
          path: "/hooks",
          token: "t0k",
        });
        const config = yield* firstConfig(tunnel.serve(yield* fn));
        assert.deepStrictEqual(config, { url: "https://abc.ngrok.example/hooks" });
        const argv = readFileSync(args, "utf8").trim().split(" ");
        assert.strictEqual(argv[0], "http");
        assert.match(argv[1] ?? "", /^127\.0\.0\.1:\d+$/);
        assert.includeMembers(argv, ["--authtoken", "t0k"]);
      }),
    ),
  );

  it.each([
    ['{"msg":"started tunnel","url":"https://x.ngrok.app"}', "https://x.ngrok.app"],
    ['{"msg":"started tunnel","url":"tcp://x.ngrok.app:1"}', undefined],
    ['{"msg":"other","url":"https://x.ngrok.app"}', undefined],
    ["not json", undefined],
  ] as const)("publicUrlOf(%s) = %s", (line, url) => {
    assert.strictEqual(WebhookNgrokTunnel.publicUrlOf(line), url);
  });
});

describe("WebhookAutoServer", () => {
  it.live("falls back to the local address on an unknown cluster", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = WebhookAutoServer.WebhookAutoServer({ addr: "127.0.0.1", insecure: true });
        const config = yield* firstConfig(server.serve(yield* fn));
        assert.match(config.url ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
      }),
    ).pipe(
      Effect.provide(
        EmulatorTransport.client().pipe(
          Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
        ),
      ),
    ),
  );

  it.live("the auto tunnel tunnels through ngrok on an unknown cluster (failing clearly without ngrok)", () =>
    Effect.gen(function* () {
      const tunnel = WebhookAutoServer.WebhookAutoTunnel({
        addr: "127.0.0.1",
        ngrok: { binary: "/nonexistent/ngrok" },
      });
      const error = yield* Effect.flip(Stream.runDrain(tunnel.serve(yield* fn)));
      assert.strictEqual(error.reason, "Tunnel");
      assert.include(error.message, "never downloaded");
    }).pipe(
      Effect.provide(
        EmulatorTransport.client().pipe(
          Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
        ),
      ),
    ),
  );
});
