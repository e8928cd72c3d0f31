/**
 * Kopf's `WebhookAutoServer` (docs/behaviour/admission.md#servers-and-tunnels): a webhook server whose host is guessed from the
 * cluster — its API server certificate (fetched with a TLS handshake to the server URL of the
 * current credentials) and its `/version` — as k3d/k3s, minikube or Docker Desktop; otherwise a
 * plain local server (the accessible listening address). `WebhookAutoTunnel` tunnels through
 * ngrok instead when the cluster is not a known local one.
 */
import { X509Certificate } from "node:crypto";
import { connect } from "node:tls";
import { CredentialsVault, KubeApi } from "@kopf/client";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import * as ClusterDetection from "../ClusterDetection.ts";
import type { WebhookFn } from "../Serving.ts";
import type { WebhookServerProtocol } from "../WebhookServerProtocol.ts";
import * as WebhookNgrokTunnel from "./WebhookNgrokTunnel.ts";
import * as WebhookServer from "./WebhookServer.ts";

const fieldValues = (dn: string, key: string): ReadonlyArray<string> =>
  dn
    .split("\n")
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));

/** The API server's certificate facts, or nothing if it cannot be fetched within 5 seconds. */
const certificateFacts = (server: string): Effect.Effect<ClusterDetection.ServerFacts | undefined> =>
  Effect.callback<ClusterDetection.ServerFacts | undefined>((resume) => {
    const url = new URL(server);
    if (url.protocol !== "https:") {
      resume(Effect.succeed(undefined));
      return;
    }
    const socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port === "" ? 443 : Number(url.port),
      rejectUnauthorized: false,
    });
    socket.once("secureConnect", () => {
      const raw = socket.getPeerCertificate(false)?.raw;
      socket.destroy();
      if (raw === undefined) return resume(Effect.succeed(undefined));
      const cert = new X509Certificate(raw);
      resume(
        Effect.succeed({
          subjectCN: fieldValues(cert.subject, "CN"),
          subjectO: fieldValues(cert.subject, "O"),
          issuerCN: fieldValues(cert.issuer, "CN"),
          sans: (cert.subjectAltName ?? "")
            .split(", ")
            .filter((san) => san.startsWith("DNS:"))
            .map((san) => san.slice(4)),
        }),
      );
    });
    socket.once("error", () => resume(Effect.succeed(undefined)));
    return Effect.sync(() => socket.destroy());
  }).pipe(Effect.timeoutOption(Duration.seconds(5)), Effect.map(Option.getOrUndefined));

/**
 * Detects the kind of the current cluster (`undefined` if not a known local one).
 *
 * @example
 * const kind = yield* WebhookAutoServer.detectCluster // "k3s" | "minikube" | "docker-desktop" | undefined
 */
export const detectCluster: Effect.Effect<ClusterDetection.ClusterKind | undefined, never, KubeApi> =
  Effect.gen(function* () {
    const vault = yield* Effect.serviceOption(CredentialsVault);
    const item = Option.isSome(vault) ? yield* Effect.option(vault.value.select) : Option.none();
    const fromCert = Option.isSome(item) ? yield* certificateFacts(item.value.info.server) : undefined;
    const detected = fromCert === undefined ? undefined : ClusterDetection.detect(fromCert);
    if (detected !== undefined) return detected;
    const api = yield* KubeApi;
    const version = yield* Effect.option(api.raw({ method: "GET", path: "/version" }));
    const gitVersion =
      Option.isSome(version) && typeof (version.value as { gitVersion?: unknown })?.gitVersion === "string"
        ? ((version.value as { gitVersion: string }).gitVersion as string)
        : undefined;
    return ClusterDetection.detect({ gitVersion });
  });

/**
 * A webhook server reached at the host the detected cluster uses for this machine.
 *
 * @example
 * ```ts
 * settings.admission.server = WebhookAutoServer.WebhookAutoServer({ port: 9443 })
 * ```
 */
export const WebhookAutoServer = (
  options: WebhookServer.WebhookServerOptions = {},
): WebhookServerProtocol => ({
  serve: (fn: WebhookFn) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const kind = options.host === undefined ? yield* detectCluster : undefined;
        if (kind !== undefined) yield* Effect.logInfo(`Detected a ${kind} cluster for the webhook server.`);
        const defaultHost = kind === undefined ? undefined : ClusterDetection.hostOf(kind);
        return WebhookServer.make(options, { defaultHost }).serve(fn);
      }),
    ),
});

/**
 * Kopf's `WebhookAutoTunnel`: a webhook server at the detected cluster's host (as
 * {@link WebhookAutoServer}) when the cluster is a known local one, else an ngrok tunnel (which
 * needs an installed ngrok binary).
 *
 * @example
 * ```ts
 * settings.admission.server = WebhookAutoServer.WebhookAutoTunnel({ path: "/hooks" })
 * ```
 */
export const WebhookAutoTunnel = (
  options: Pick<WebhookServer.WebhookServerOptions, "addr" | "port" | "path"> & {
    readonly ngrok?: Omit<WebhookNgrokTunnel.NgrokOptions, "addr" | "port" | "path"> | undefined;
  } = {},
): WebhookServerProtocol => ({
  serve: (fn: WebhookFn) =>
    Stream.unwrap(
      Effect.gen(function* () {
        const kind = yield* detectCluster;
        if (kind !== undefined) {
          yield* Effect.logInfo(
            `Detected a ${kind} cluster: serving webhooks locally instead of tunnelling.`,
          );
          return WebhookServer.make(
            { addr: options.addr, port: options.port, path: options.path },
            { defaultHost: ClusterDetection.hostOf(kind) },
          ).serve(fn);
        }
        return WebhookNgrokTunnel.WebhookNgrokTunnel({
          ...options.ngrok,
          addr: options.addr,
          port: options.port,
          path: options.path,
        }).serve(fn);
      }),
    ),
});
