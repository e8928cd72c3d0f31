/**
 * Cluster detection of WebhookAutoServer against an API server endpoint whose certificate looks
 * like k3s's (subject CN `k3s`): the server is then reported at `host.k3d.internal`.
 */
import { createServer } from "node:https";
import { assert, describe, it } from "@effect/vitest";
import { ConnectionInfo } from "@kopf/client";
import { EmulatorTransport, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { Registry } from "@kopf/registry";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import { Certificates, type ClientConfig, Serving, WebhookAutoServer } from "../../src/index.ts";
import { RESOURCE } from "../fixtures/reviews.ts";

/** A TLS endpoint presenting a k3s-like certificate, closed with the scope. */
const k3sEndpoint = Effect.acquireRelease(
  Effect.gen(function* () {
    const cert = yield* Certificates.selfSigned({
      commonName: "k3s",
      dnsNames: ["k3s"],
      ipAddresses: ["127.0.0.1"],
    });
    const server = createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => res.end("{}"));
    const port = yield* Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0));
      });
    });
    return { server, port };
  }),
  ({ server }) => Effect.sync(() => server.close()),
);

const clusterAt = (server: string) =>
  EmulatorTransport.client({
    credentials: { k3s: Result.getOrThrow(ConnectionInfo.make({ server, token: "t" })) },
  }).pipe(Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)));

describe("WebhookAutoServer", () => {
  it.live("detects k3s from the API server certificate and reports host.k3d.internal", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { port } = yield* k3sEndpoint;
        yield* Effect.scoped(
          Effect.gen(function* () {
            assert.strictEqual(yield* WebhookAutoServer.detectCluster, "k3s");
            const fn = yield* Serving.make({
              registry: Registry.make(),
              resources: () => [RESOURCE],
              memo: {},
            });
            const first = yield* Deferred.make<ClientConfig>();
            const server = WebhookAutoServer.WebhookAutoServer({ addr: "127.0.0.1", insecure: true });
            yield* Effect.forkScoped(
              Stream.runForEach(server.serve(fn), (c) => Deferred.succeed(first, c)).pipe(Effect.orDie),
            );
            const config = yield* Deferred.await(first);
            assert.match(config.url ?? "", /^http:\/\/host\.k3d\.internal:\d+$/);
          }),
        ).pipe(Effect.provide(clusterAt(`https://127.0.0.1:${port}`)));
      }),
    ),
  );
});
