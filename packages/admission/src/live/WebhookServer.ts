/**
 * The built-in webhook server (Kopf's `WebhookServer` and its local-development variants): an
 * HTTPS server answering `POST {path}/{id}` with the operator's webhook function. It uses the
 * given certificate and key files, or generates a self-signed certificate for the host names and
 * IPs it is reached by; `insecure` serves plain HTTP (for tunnels that terminate TLS). It reports
 * `{url, caBundle}` (the CA bundle optionally dumped to `cadump`), re-reads the given files every
 * `fileCheckInterval` seconds — swapping the certificates in place and reporting again when they
 * change — and renews a self-signed certificate before it expires.
 *
 * Untrusted clients are kept cheap (`internal/requests.ts`): bodies over `maxBodyBytes` are
 * refused before they are read, bodies in flight share a byte budget, over-deep JSON is refused
 * before parsing, a client slower than `requestTimeout` is answered 408 and disconnected, and
 * what the HTTP parser refuses is answered 400/431 instead of a silent reset. Without `addr` it
 * listens on all interfaces, as Kopf does: the API server calls it from elsewhere.
 *
 * `WebhookK3dServer`, `WebhookMinikubeServer` and `WebhookDockerDesktopServer` only change the
 * default host to the name the cluster's nodes use for the developer's machine.
 *
 * Why Node's `https` server and not `@effect/platform-node`'s HTTP server: that one can wrap a
 * server made here (so TLS, client certificates, timeouts and certificate swaps would stay), but
 * everything this server must do about untrusted input happens beneath the request it offers —
 * refusing by the declared `content-length` before reading and closing the connection, charging
 * the byte budget by that length, answering the parser's refusals, and reading the TLS peer
 * certificate from the socket — so it would be bypassed at each of those points, and its own
 * body limit only counts bytes as it reads them. It would replace a few lines of routing and
 * answering at the cost of a new dependency of this package; the raw server stays.
 */
import { writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server as HttpsServer } from "node:https";
import * as Clock from "effect/Clock";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import { Base64 } from "effect/encoding";
import * as Fiber from "effect/Fiber";
import * as Queue from "effect/Queue";
import * as Semaphore from "effect/Semaphore";
import * as Stream from "effect/Stream";
import type { ClientConfig } from "../ClientConfig.ts";
import * as Endpoint from "../Endpoint.ts";
import type { WebhookFn } from "../Serving.ts";
import { WebhookServerError, type WebhookServerProtocol } from "../WebhookServerProtocol.ts";
import { close, listen, refuseMalformed, serverTimeouts } from "./internal/listening.ts";
import { handle } from "./internal/requests.ts";
import { fingerprint, loadTls, secureContext } from "./internal/tls.ts";

/** Options of the webhook servers (Kopf's `WebhookServer` arguments). */
export interface WebhookServerOptions {
  /** The address to listen on; default all interfaces. */
  readonly addr?: string | undefined;
  /** The port; default a free one chosen by the system. */
  readonly port?: number | undefined;
  /** The path prefix of the webhooks (e.g. `/webhooks`). */
  readonly path?: string | undefined;
  /** The host name the API server uses; default the class's host, else the accessible address. */
  readonly host?: string | undefined;
  /**
   * The CA bundle to report with given certificate files (PEM); default the CA file, else the
   * certificate file. A self-signed certificate always reports itself.
   */
  readonly cadata?: string | undefined;
  readonly cafile?: string | undefined;
  /** Where to write the reported CA bundle (PEM), e.g. for `kubectl` or curl. */
  readonly cadump?: string | undefined;
  /** Serve plain HTTP (only behind a TLS-terminating tunnel or proxy). */
  readonly insecure?: boolean | undefined;
  /** The server's certificate and key files (PEM); default a self-signed certificate. */
  readonly certfile?: string | undefined;
  readonly pkeyfile?: string | undefined;
  /** The key file's passphrase. */
  readonly password?: string | undefined;
  /** More host names or IPs for the self-signed certificate. */
  readonly extraSans?: ReadonlyArray<string> | undefined;
  /** Client certificate verification; `"optional"` when CAs are given and this is `"none"`. */
  readonly verifyMode?: "none" | "optional" | "required" | undefined;
  readonly verifyCafile?: string | undefined;
  /** A directory of PEM CA certificates for client verification (every file with a certificate). */
  readonly verifyCapath?: string | undefined;
  readonly verifyCadata?: string | undefined;
  /** Seconds between re-reads of the given files (and expiry checks). Default 60. */
  readonly fileCheckInterval?: number | undefined;
  /**
   * The largest accepted request body, bytes: a larger one is refused with 413 before it is read
   * (or as soon as it grows past the limit). Default 3 MiB, the API server's own limit on a
   * request body.
   */
  readonly maxBodyBytes?: number | undefined;
  /** The deepest accepted nesting of arrays and objects in a request body (deeper: 400). Default 256. */
  readonly maxJsonDepth?: number | undefined;
  /**
   * The bytes of request bodies read and served at once (each request counted at its declared
   * length, at least 16 KiB, or at `maxBodyBytes` when undeclared); other requests wait their
   * turn, for at most `requestTimeout` (then: 429). Default 16 MiB.
   */
  readonly maxBytesInFlight?: number | undefined;
  /**
   * Seconds a client has to send a whole request (headers and body); a slower one is answered
   * 408 and disconnected. Default 30, the longest the API server waits for a webhook.
   */
  readonly requestTimeout?: number | undefined;
}

/** The default limits of the built-in servers. */
export const DEFAULT_LIMITS = {
  maxBodyBytes: 3 * 1024 * 1024,
  maxJsonDepth: 256,
  maxBytesInFlight: 16 * 1024 * 1024,
  requestTimeout: 30,
} as const;

/** A built-in server: a webhook server that needs nothing from the context. */
export interface LocalServer extends WebhookServerProtocol {
  readonly serve: (fn: WebhookFn) => Stream.Stream<ClientConfig, WebhookServerError>;
}

/** The default host of a server class (`undefined`: the accessible listening address). */
export interface ServerClass {
  readonly defaultHost?: string | undefined;
}

/**
 * A webhook server of a class (a default host).
 *
 * @example
 * ```ts
 * const server = WebhookServer.make({ port: 9443, path: "/hooks", cadump: "/tmp/ca.pem" })
 * ```
 */
export const make = (options: WebhookServerOptions = {}, serverClass: ServerClass = {}): LocalServer => ({
  serve: (fn: WebhookFn) =>
    Stream.callback<ClientConfig, WebhookServerError>((queue) =>
      Effect.gen(function* () {
        const host = options.host ?? serverClass.defaultHost;
        const insecure = options.insecure === true;
        const routing = {
          path: (options.path ?? "").replace(/\/+$/, "").replace(/^(?!\/)(?=.)/, "/"),
          maxBodyBytes: options.maxBodyBytes ?? DEFAULT_LIMITS.maxBodyBytes,
          maxJsonDepth: options.maxJsonDepth ?? DEFAULT_LIMITS.maxJsonDepth,
        };
        const inFlight = options.maxBytesInFlight ?? DEFAULT_LIMITS.maxBytesInFlight;
        const requestTimeout = options.requestTimeout ?? DEFAULT_LIMITS.requestTimeout;
        const budget = {
          semaphore: yield* Semaphore.make(inFlight),
          bytes: inFlight,
          wait: Duration.seconds(requestTimeout),
        };
        const fork = Effect.runForkWith(yield* Effect.context<never>());
        // Requests in flight are interrupted when the server stops, or when their client leaves.
        const fibers = new Set<Fiber.Fiber<void>>();
        yield* Effect.addFinalizer(() => Fiber.interruptAll([...fibers]));
        const handler = (req: IncomingMessage, res: ServerResponse) => {
          const fiber = fork(handle(routing, fn, budget, req, res));
          fibers.add(fiber);
          fiber.addObserver(() => fibers.delete(fiber));
          res.once("close", () => {
            if (!res.writableFinished) fiber.interruptUnsafe();
          });
        };
        const timeouts = serverTimeouts(requestTimeout);
        let tls = insecure ? undefined : yield* loadTls(options, host);
        // Node's modules themselves, not imports: importing `node:http` as an ES module reads every
        // export, and its `WebSocket`-family getters load Node's own fetch implementation (~0.1 s,
        // ~13 MiB) at the start of every operator, webhooks or not; `node:https` costs ~8 MiB.
        const server =
          tls === undefined
            ? process.getBuiltinModule("node:http").createServer(timeouts, handler)
            : process
                .getBuiltinModule("node:https")
                .createServer({ ...timeouts, ...secureContext(tls, options) }, handler);
        server.on("clientError", refuseMalformed);
        const port = yield* listen(server, options.port ?? 0, options.addr);
        yield* Effect.addFinalizer(() => close(server));

        const report = Effect.gen(function* () {
          const url = Endpoint.url({
            scheme: insecure ? "http" : "https",
            host,
            addr: options.addr,
            port,
            path: routing.path,
          });
          if (tls !== undefined && options.cadump !== undefined) {
            const path = options.cadump;
            const data = tls.caBundle;
            yield* Effect.tryPromise({
              try: () => writeFile(path, data),
              catch: (cause) =>
                new WebhookServerError({
                  reason: "Files",
                  message: `Cannot write ${path}: ${String(cause)}`,
                  cause,
                }),
            });
          }
          yield* Effect.logDebug(`Listening for webhooks at ${url}`);
          yield* Queue.offer(queue, {
            url,
            ...(tls === undefined ? {} : { caBundle: Base64.encode(tls.caBundle) }),
          });
        });
        yield* report;

        if (tls === undefined) return yield* Effect.never;
        const interval = Duration.seconds(options.fileCheckInterval ?? 60);
        while (true) {
          yield* Effect.sleep(interval);
          const now = yield* Clock.currentTimeMillis;
          const selfSigned = options.certfile === undefined;
          if (selfSigned && tls.renewAfter !== undefined && now < tls.renewAfter) continue;
          const next = yield* loadTls(options, host).pipe(
            Effect.tapError((error) =>
              Effect.logWarning(`${error.message}; keeping the current certificates.`),
            ),
            Effect.option,
          );
          if (next._tag === "None" || fingerprint(next.value) === fingerprint(tls)) continue;
          tls = next.value;
          (server as HttpsServer).setSecureContext(secureContext(tls, options));
          yield* Effect.logInfo("The webhook server's certificates have changed; serving the new ones.");
          yield* report;
        }
      }),
    ),
});

/** Kopf's `WebhookServer`: the accessible listening address as the host by default. */
export const WebhookServer = (options?: WebhookServerOptions): LocalServer => make(options);

/** Kopf's `WebhookK3dServer`: reached by k3d/k3s nodes at `host.k3d.internal`. */
export const WebhookK3dServer = (options?: WebhookServerOptions): LocalServer =>
  make(options, { defaultHost: "host.k3d.internal" });

/** Kopf's `WebhookMinikubeServer`: reached by minikube nodes at `host.minikube.internal`. */
export const WebhookMinikubeServer = (options?: WebhookServerOptions): LocalServer =>
  make(options, { defaultHost: "host.minikube.internal" });

/** Kopf's `WebhookDockerDesktopServer`: reached by Docker Desktop's cluster at `host.docker.internal`. */
export const WebhookDockerDesktopServer = (options?: WebhookServerOptions): LocalServer =>
  make(options, { defaultHost: "host.docker.internal" });
