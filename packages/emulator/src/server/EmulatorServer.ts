/**
 * The emulator over the network: an HTTPS (or plain HTTP) server on HTTP/1.1 with keep-alive that
 * turns requests into `ApiRequest`s for `KubeEmulator.handle`, behind authentication, the body
 * limit, the fault injector and the `/.emulator/` control surface. It owns a certificate authority
 * generated at start, writes kubeconfig files for `kubectl` and other clients, and can be paused
 * (every connection dropped, new ones refused) and resumed on the same port with its data intact.
 *
 * Why `node:http(s)` and not `@effect/platform-node`'s `NodeHttpServer` (read against 4.1.0):
 * its server takes a lazily built Node server, so TLS with `requestCert` and the peer certificate
 * would work, but it owns the server's lifecycle, and that lifecycle is not the one the chaos and
 * conformance suites pin. Its shutdown is cached (a closed server never listens again) and
 * graceful (`server.close`, waiting up to `gracefulShutdownTimeout`), while pausing here destroys
 * every socket at once — open watches are cut, as when a real API server dies — and resuming
 * listens again with the same server on the same port. Its responses also follow its own rules
 * (a status text, `connection: close` decided by how much of the body was read, statuses outside
 * 200–599 refused), where the emulator answers an oversized body with kube-apiserver's 413 and
 * `connection: close` before reading the rest. And every request would pay for a fiber and the
 * router's request wrapper before the core, where this path stays plain callbacks (measured by
 * `packages/emulator/bench`).
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Socket } from "node:net";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as FiberSet from "effect/FiberSet";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import { type ApiRequest, KubeEmulator } from "../api/Emulator.ts";
import * as ControlApi from "../control/ControlApi.ts";
import { FaultInjector } from "../control/FaultInjector.ts";
import type * as CertificateAuthority from "../tls/CertificateAuthority.ts";
import * as Authentication from "./Authentication.ts";
import type { EmulatorServerError } from "./EmulatorServerError.ts";
import * as Listening from "./internal/listening.ts";
import {
  headersOf,
  peerOf,
  readBody,
  targetOf,
  writeComplete,
  writeResponse,
} from "./internal/nodeBridge.ts";
import { statusResponse } from "./internal/status.ts";
import * as Kubeconfig from "./Kubeconfig.ts";

/** How the server listens and authenticates. */
export interface EmulatorServerOptions {
  /** The port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** The address to bind (default 127.0.0.1). */
  readonly host?: string;
  /** HTTPS with the emulator's CA (default) or plain HTTP. */
  readonly tls?: boolean;
  /** A bearer token every request must carry (client certificates from the CA also pass). */
  readonly token?: string;
  /** Extra DNS names or IPs for the serving certificate. */
  readonly extraNames?: ReadonlyArray<string>;
  /** The request body limit in bytes (default 3 MiB, as kube-apiserver). */
  readonly maxBodyBytes?: number;
  /**
   * The CA (and serving certificate) of an earlier run, as its {@link EmulatorServer} `tlsMaterial`
   * gave them: clients that trusted that run trust this one, and its client certificates pass.
   * Default: a new CA.
   */
  readonly tlsMaterial?: CertificateAuthority.TlsMaterial;
}

/** The user a written kubeconfig authenticates as. */
export interface KubeconfigUser {
  readonly token?: string;
  readonly clientCertificate?: CertificateAuthority.KeyPair;
  readonly namespace?: string;
}

/** kube-apiserver's request body limit. */
export const defaultMaxBodyBytes = 3 * 1024 * 1024;

/**
 * A running emulator server.
 *
 * @example
 * ```ts
 * const program = Effect.gen(function* () {
 *   const server = yield* EmulatorServer;
 *   yield* server.writeKubeconfig("/tmp/kubeconfig");
 *   // kubectl --kubeconfig /tmp/kubeconfig get namespaces
 * }).pipe(Effect.provide(EmulatorServer.layer({ tls: true }).pipe(Layer.provide(emulatorLayers))));
 * ```
 */
export class EmulatorServer extends Context.Service<
  EmulatorServer,
  {
    /** The base URL, e.g. `https://127.0.0.1:40123`. */
    readonly url: string;
    readonly host: string;
    readonly port: number;
    readonly tls: boolean;
    /** The CA certificate (PEM) that signed the serving certificate. */
    readonly caPem: string;
    /** The CA and serving certificate with their keys, to serve with the same ones after a restart. */
    readonly tlsMaterial: CertificateAuthority.TlsMaterial;
    /** A kubeconfig (YAML) for this server. */
    readonly kubeconfig: (user?: KubeconfigUser) => string;
    /** Writes a kubeconfig file for this server. */
    readonly writeKubeconfig: (
      path: string,
      user?: KubeconfigUser,
    ) => Effect.Effect<void, Kubeconfig.KubeconfigError>;
    /** Issues a client certificate the server accepts (user = CN, groups = O). */
    readonly issueClientCertificate: (
      identity: CertificateAuthority.ClientIdentity,
    ) => Effect.Effect<CertificateAuthority.KeyPair, CertificateAuthority.TlsError>;
    /** Fault injection, watch dropping, history compaction, pause and resume. */
    readonly control: ControlApi.ControlOperations;
    readonly isPaused: Effect.Effect<boolean>;
  }
>()("@kopf/emulator/EmulatorServer") {
  /** Starts the server for the lifetime of the layer. */
  static readonly layer = (
    options: EmulatorServerOptions = {},
  ): Layer.Layer<EmulatorServer, EmulatorServerError, KubeEmulator | FaultInjector> =>
    Layer.effect(EmulatorServer, make(options));
}

const unauthorized = statusResponse(401, "Unauthorized");

const tooLarge = (limit: number) => statusResponse(413, `Request entity too large: limit is ${limit}`);

const make = Effect.fnUntraced(function* (options: EmulatorServerOptions) {
  const emulator = yield* KubeEmulator;
  const faults = yield* FaultInjector;
  const host = options.host ?? "127.0.0.1";
  const useTls = options.tls ?? true;
  const maxBody = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const { ca, serving } = yield* Listening.certificates(options.tlsMaterial, [
    host,
    ...(options.extraNames ?? []),
  ]);
  if (useTls) yield* emulator.setRootCa(ca.certPem);
  const run = yield* FiberSet.makeRuntime<never>();

  const sockets = new Set<Socket>();
  let paused = false;
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  /** Answers an unexpected failure: a 500 Status if nothing was sent yet, else a cut connection. */
  const failed = (res: ServerResponse) => (cause: Cause.Cause<unknown>) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.void
      : Effect.sync(() => {
          if (res.headersSent) res.destroy();
          else {
            const failure = statusResponse(
              500,
              `the emulator failed on this request: ${Cause.pretty(cause)}`,
            );
            writeComplete(res, failure);
          }
        });

  /** Runs one request's effect; a client going away interrupts it (and ends a watch stream). */
  const runFor = (res: ServerResponse, effect: Effect.Effect<void>) => {
    const fiber = run(effect.pipe(Effect.catchCause(failed(res))));
    res.once("close", () => fiber.interruptUnsafe());
  };

  /** The request path up to the core, in plain callbacks (this runs for every request). */
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const auth = Authentication.authenticate({
      authorization: req.headers.authorization,
      peer: useTls ? peerOf(req.socket) : undefined,
      requiredToken: options.token,
    });
    if (Result.isFailure(auth)) return writeComplete(res, unauthorized);
    readBody(req, maxBody, (read) => {
      if (read._tag === "Aborted") return;
      if (read._tag === "TooLarge") {
        return writeComplete(res, tooLarge(maxBody), { connection: "close" });
      }
      const target = targetOf(req.url ?? "/");
      const request: ApiRequest = {
        method: req.method ?? "GET",
        path: target.path,
        query: target.query,
        headers: headersOf(req),
        body: read.body,
        user: auth.success,
      };
      if (ControlApi.isControlPath(request.path)) {
        return runFor(
          res,
          Effect.flatMap(ControlApi.route(request, control), (result) => {
            const after = result.after;
            if (after !== undefined) res.once("finish", () => run(after));
            return writeResponse(res, result.response);
          }),
        );
      }
      runFor(
        res,
        Effect.flatMap(faults.around(request, emulator.handle), (response) => writeResponse(res, response)),
      );
    });
  };

  const server: Server = useTls
    ? createHttpsServer(
        {
          cert: serving.certPem,
          key: serving.keyPem,
          ca: [ca.certPem],
          requestCert: true,
          rejectUnauthorized: false,
          keepAliveTimeout: 30_000,
        },
        onRequest,
      )
    : createHttpServer({ keepAliveTimeout: 30_000 }, onRequest);
  server.on("connection", onConnection);

  const closeServer = Listening.close(server, sockets);

  const port = yield* Listening.listen(server, options.port ?? 0, host);
  yield* Effect.addFinalizer(() => closeServer);

  const pause = Effect.suspend(() => {
    paused = true;
    return closeServer;
  });
  const resume = Effect.suspend(() => {
    if (!paused) return Effect.void;
    return Listening.listen(server, port, host).pipe(Effect.tap(() => Effect.sync(() => (paused = false))));
  });
  const control: ControlApi.ControlOperations = {
    injectFailure: faults.injectFailure,
    addLatency: faults.addLatency,
    clearFaults: faults.clear,
    pendingFaults: faults.pending,
    dropWatches: emulator.dropWatches,
    compactHistory: emulator.compactHistory,
    pause,
    resume,
    restart: pause.pipe(Effect.andThen(resume)),
  };

  const url = Listening.urlOf(useTls, host, port);
  const kubeconfigOptions = (user: KubeconfigUser = {}): Kubeconfig.KubeconfigOptions => ({
    server: url,
    ...(useTls ? { caPem: ca.certPem } : {}),
    ...(user.clientCertificate === undefined
      ? { token: user.token ?? options.token ?? "kopf-emulator" }
      : {}),
    ...(user.clientCertificate === undefined ? {} : { clientCertificate: user.clientCertificate }),
    ...(user.namespace === undefined ? {} : { namespace: user.namespace }),
  });

  return EmulatorServer.of({
    url,
    host,
    port,
    tls: useTls,
    caPem: ca.certPem,
    tlsMaterial: { ca: { certPem: ca.certPem, keyPem: ca.keyPem }, serving },
    kubeconfig: (user) => Kubeconfig.render(kubeconfigOptions(user)),
    writeKubeconfig: (path, user) => Kubeconfig.write(path, kubeconfigOptions(user)),
    issueClientCertificate: ca.issueClient,
    control,
    isPaused: Effect.sync(() => paused),
  });
});
