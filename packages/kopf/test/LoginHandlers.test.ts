/**
 * The registry's on.login handlers are how kopf.operator (and so `kopf run`) logs in, as in
 * Kopf: against an emulator that requires a token no kubeconfig has, the operator can only
 * reach the cluster through the credentials its login handler returns.
 */
import { EmulatorServer, FaultInjector, KubeEmulator } from "@kopf/emulator";
import { KopfRunner } from "@kopf/testing";
import type * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import { describe, expect, it } from "vitest";
import * as kopf from "../src/index.ts";

const NS = { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } };
const CRD = KopfRunner.kopfExampleCrd;
const OBJ = { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "obj", namespace: "ns1" } };

/** An HTTPS emulator that accepts only the token `s3cret`. */
const startServer = async () => {
  const scope = Scope.makeUnsafe();
  const layer = EmulatorServer.layer({ port: 0, tls: true, token: "s3cret" }).pipe(
    Layer.provideMerge(Layer.mergeAll(KubeEmulator.layer(), FaultInjector.layer)),
  );
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope));
  const run = <A, E>(effect: Effect.Effect<A, E, KubeEmulator | EmulatorServer>) =>
    Effect.runPromise(
      Effect.provideContext(effect, context as Context.Context<KubeEmulator | EmulatorServer>),
    );
  const server = await run(EmulatorServer);
  return { run, server, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};

describe("login handlers", () => {
  it("are used to reach the cluster when the registry has them", async () => {
    const { run, server, close } = await startServer();
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = "/nonexistent/kubeconfig"; // the built-in login could not work
    try {
      await run(Effect.flatMap(KubeEmulator, (emulator) => emulator.apply([NS, CRD, OBJ])));
      const registry = kopf.Registry.make();
      let logins = 0;
      registry.on.login(function login_fn() {
        logins++;
        return { server: server.url, caData: server.caPem, token: "s3cret", trustEnv: false, priority: 0 };
      });
      registry.on.create("kopfexamples.kopf.dev", function create_fn() {
        return { handled: true };
      });
      const lines: Array<string> = [];
      const operator = kopf.operator({
        registry,
        namespaces: ["ns1"],
        standalone: true,
        logging: { write: (line) => void lines.push(line) },
      });
      await operator.ready;
      const deadline = performance.now() + 15_000;
      let status: unknown;
      while (performance.now() < deadline && status === undefined) {
        const body = await run(
          Effect.map(KubeEmulator, (emulator) =>
            emulator.reader.get("kopf.dev", "kopfexamples", "ns1", "obj"),
          ),
        );
        status = (body as { status?: { create_fn?: unknown } } | undefined)?.status?.create_fn;
        if (status === undefined) await new Promise((done) => setTimeout(done, 50));
      }
      await operator.stop();
      expect(status, lines.join("\n")).toEqual({ handled: true });
      expect(logins).toBeGreaterThan(0);
      expect(lines.join("\n")).toContain("Initial authentication has finished.");
    } finally {
      if (previous === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = previous;
      await close();
    }
  });
});
