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
import { readdir, readFile, writeFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { Socket } from "node:net";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import type { SecureContextOptions } from "node:tls";
import { Clock, Duration, Effect, Fiber, Queue, Semaphore, Stream } from "effect";
import { Base64 } from "effect/encoding";
import type { ClientConfig } from "../ClientConfig.ts";
import * as Endpoint from "../Endpoint.ts";
import type { WebhookFn } from "../Serving.ts";
import { WebhookServerError, type WebhookServerProtocol } from "../WebhookServerProtocol.ts";
import * as Certificates from "./Certificates.ts";
import { handle } from "./internal/requests.ts";

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
   * turn. Default 16 MiB.
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

interface Tls {
  readonly cert: string;
  readonly key: string;
  readonly caBundle: string;
  readonly verifyCa: string | undefined;
  /** Renew (self-signed) after this instant, epoch ms. */
  readonly renewAfter: number | undefined;
}

const DAY = 24 * 60 * 60 * 1000;

const read = (path: string) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (cause) =>
      new WebhookServerError({ reason: "Files", message: `Cannot read ${path}: ${String(cause)}`, cause }),
  });

/** The PEM certificates among the files of a directory. */
const readDirectory = (path: string) =>
  Effect.tryPromise({
    try: async () => {
      const names = (await readdir(path, { withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => e.name);
      const texts = await Promise.all(names.sort().map((name) => readFile(join(path, name), "utf8")));
      return texts.filter((text) => text.includes("-----BEGIN CERTIFICATE-----"));
    },
    catch: (cause) =>
      new WebhookServerError({ reason: "Files", message: `Cannot read ${path}: ${String(cause)}`, cause }),
  });

const loadTls = (
  options: WebhookServerOptions,
  host: string | undefined,
): Effect.Effect<Tls, WebhookServerError> =>
  Effect.gen(function* () {
    const verifyParts = [
      ...(options.verifyCafile === undefined ? [] : [yield* read(options.verifyCafile)]),
      ...(options.verifyCapath === undefined ? [] : yield* readDirectory(options.verifyCapath)),
      ...(options.verifyCadata === undefined ? [] : [options.verifyCadata]),
    ];
    const verifyCa = verifyParts.length === 0 ? undefined : verifyParts.join("\n");
    if (options.certfile !== undefined || options.pkeyfile !== undefined) {
      if (options.certfile === undefined || options.pkeyfile === undefined) {
        return yield* new WebhookServerError({
          reason: "Certificate",
          message: "Both certfile and pkeyfile must be given, or neither (for a self-signed certificate).",
        });
      }
      const cert = yield* read(options.certfile);
      const key = yield* read(options.pkeyfile);
      const cadata =
        options.cadata ?? (options.cafile === undefined ? undefined : yield* read(options.cafile));
      return { cert, key, caBundle: cadata ?? cert, verifyCa, renewAfter: undefined };
    }
    const names = Endpoint.certificateNames({ host, addr: options.addr, extraSans: options.extraSans });
    const made = yield* Certificates.selfSigned(names).pipe(
      Effect.mapError(
        (error) => new WebhookServerError({ reason: "Certificate", message: error.message, cause: error }),
      ),
    );
    // For a self-signed certificate, the CA bundle is the certificate itself (as in Kopf),
    // whatever cafile/cadata say.
    return {
      cert: made.certPem,
      key: made.keyPem,
      caBundle: made.certPem,
      verifyCa,
      renewAfter: made.notAfter - 30 * DAY,
    };
  });

const secureContext = (
  tls: Tls,
  options: WebhookServerOptions,
): SecureContextOptions & {
  requestCert: boolean;
  rejectUnauthorized: boolean;
} => {
  const mode = options.verifyMode === "none" && tls.verifyCa !== undefined ? "optional" : options.verifyMode;
  return {
    cert: tls.cert,
    key: tls.key,
    ...(options.password === undefined ? {} : { passphrase: options.password }),
    ...(tls.verifyCa === undefined ? {} : { ca: tls.verifyCa }),
    requestCert: mode === "optional" || mode === "required",
    rejectUnauthorized: mode === "required",
  };
};

const listen = (server: Server | HttpsServer, port: number, addr: string | undefined) =>
  Effect.callback<number, WebhookServerError>((resume) => {
    const onError = (error: Error) =>
      resume(
        Effect.fail(
          new WebhookServerError({
            reason: "Listen",
            message: `Cannot listen on ${addr ?? "*"}:${port}: ${error.message}`,
            cause: error,
          }),
        ),
      );
    server.once("error", onError);
    server.listen(port, addr, () => {
      server.off("error", onError);
      const address = server.address();
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port));
    });
  });

const close = (server: Server | HttpsServer) =>
  Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void));
    server.closeAllConnections();
  });

/** The Node server options that bound how long a client may take to send a request. */
const serverTimeouts = (seconds: number) => {
  const ms = Math.max(1, Math.round(seconds * 1000));
  return {
    requestTimeout: ms,
    headersTimeout: ms,
    // How often the timeouts are checked (Node's default, 30 s, would let them overrun a lot).
    connectionsCheckingInterval: Math.min(1000, ms),
  };
};

/**
 * Answers what Node's HTTP parser refused before a request existed (408 for a client too slow
 * to send it, 431 for oversized headers, 400 otherwise) and closes the connection.
 */
const refuseMalformed = (error: Error & { code?: string }, socket: Duplex): void => {
  const status =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? "408 Request Timeout"
      : error.code === "HPE_HEADER_OVERFLOW"
        ? "431 Request Header Fields Too Large"
        : "400 Bad Request";
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  // Closed once the answer is written (a TLS socket says goodbye first).
  if (socket instanceof Socket) socket.destroySoon();
  else socket.end();
};

const fingerprint = (tls: Tls | undefined): string =>
  tls === undefined ? "" : `${tls.cert}\0${tls.key}\0${tls.caBundle}\0${tls.verifyCa ?? ""}`;

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
        const budget = { semaphore: yield* Semaphore.make(inFlight), bytes: inFlight };
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
        const timeouts = serverTimeouts(options.requestTimeout ?? DEFAULT_LIMITS.requestTimeout);
        let tls = insecure ? undefined : yield* loadTls(options, host);
        const server =
          tls === undefined
            ? createHttpServer(timeouts, handler)
            : createHttpsServer({ ...timeouts, ...secureContext(tls, options) }, handler);
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
