// The emulator's side of the emulator benchmark (../emulator.bench.ts forks itself with --serve and
// runs this): an HTTPS emulator with the example resource, a plain node:https server with the same
// certificate as the floor, and the messages that report its CPU time and memory to the driver.
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

/** The written resource's group and plural. */
export const GROUP = "kopf.dev";
export const PLURAL = "kopfexamples";

/** Messages between this process and the emulator's. */
export type FromServer =
  | { readonly ready: { readonly url: string; readonly caPem: string; readonly plainUrl: string } }
  | { readonly cpu: { readonly user: number; readonly system: number } }
  | {
      readonly memory: {
        readonly objects: number;
        readonly bytesPerObject: number;
        readonly gcExposed: boolean;
      };
    };
export type ToServer = { readonly cpu: true } | { readonly memory: number } | { readonly exit: true };

/** The emulator's side: serves over HTTPS (and a plain node:https floor) and answers the driver's messages. */
export const serve = async () => {
  const Context = await import("effect/Context");
  const Effect = await import("effect/Effect");
  const Layer = await import("effect/Layer");
  const { KubeEmulator } = await import("../../src/api/Emulator.ts");
  const { FaultInjector } = await import("../../src/control/FaultInjector.ts");
  const { EmulatorServer } = await import("../../src/server/EmulatorServer.ts");
  const send = (message: FromServer) => process.send?.(message);

  /** Memory per stored object, measured on a fresh emulator through `apply`. */
  const memory = (objects: number) =>
    Effect.scoped(
      Effect.gen(function* () {
        const fresh = Context.get(yield* Layer.build(KubeEmulator.layer()), KubeEmulator);
        const gc = (globalThis as { gc?: () => void }).gc;
        gc?.();
        const before = process.memoryUsage().heapUsed;
        for (let start = 0; start < objects; start += 1000) {
          yield* fresh.apply(
            Array.from({ length: Math.min(1000, objects - start) }, (_, k) => ({
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: `mem-${start + k}`, namespace: "default", labels: { app: "bench" } },
              data: { key: "value" },
            })),
          );
        }
        gc?.();
        const bytes = process.memoryUsage().heapUsed - before;
        return { objects, bytesPerObject: Math.round(bytes / objects), gcExposed: gc !== undefined };
      }),
    );

  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(
          EmulatorServer.layer({ tls: true }).pipe(
            Layer.provideMerge(Layer.merge(KubeEmulator.layer(), FaultInjector.layer)),
          ),
        );
        const server = Context.get(context, EmulatorServer);
        // The floor: a plain node:https server with the same certificate, answering "ok".
        const plain = createServer(
          {
            cert: server.tlsMaterial.serving.certPem,
            key: server.tlsMaterial.serving.keyPem,
            keepAliveTimeout: 30_000,
          },
          (req, res) => {
            req.resume();
            req.on("end", () => {
              res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
              res.end("ok");
            });
          },
        );
        yield* Effect.promise(
          () => new Promise<void>((listening) => plain.listen(0, "127.0.0.1", listening)),
        );
        yield* Effect.addFinalizer(() => Effect.sync(() => plain.close()));
        const plainUrl = `https://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
        send({ ready: { url: server.url, caPem: server.caPem, plainUrl } });
        yield* Effect.callback<void>((resume) => {
          process.on("message", (message: ToServer) => {
            if ("cpu" in message) {
              send({ cpu: process.cpuUsage() });
            } else if ("memory" in message) {
              Effect.runPromise(memory(message.memory)).then((result) => send({ memory: result }));
            } else resume(Effect.void);
          });
        });
      }),
    ),
  );
  process.exit(0);
};
