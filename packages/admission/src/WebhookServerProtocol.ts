/**
 * The protocol of webhook servers and tunnels (Kopf's `WebhookServerProtocol`): given the
 * operator's webhook function, serve it and report how the API server reaches it — a stream of
 * client configs (a new one whenever the endpoint changes: renewed certificates, a reconnected
 * tunnel). `settings.admission.server` holds one of these. The built-in ones live in
 * `src/live/` (`WebhookServer`, its K3d/Minikube/Docker Desktop variants, `WebhookAutoServer`,
 * `WebhookNgrokTunnel`).
 */
import type { KubeApi } from "@kopf/client";
import * as Data from "effect/Data";
import type * as Stream from "effect/Stream";
import type { ClientConfig } from "./ClientConfig.ts";
import type { WebhookFn } from "./Serving.ts";

/** Why a webhook server or tunnel could not serve. */
export class WebhookServerError extends Data.TaggedError("WebhookServerError")<{
  readonly reason: "Listen" | "Certificate" | "Files" | "Tunnel" | "Detection";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/**
 * A webhook server or tunnel.
 *
 * @example
 * ```ts
 * const server: WebhookServerProtocol = WebhookServer.make({ port: 8443, host: "host.docker.internal" })
 * kopf.run({ registry, settings: { admission: { server, managed: "auto.kopf.dev" } } })
 * ```
 */
export interface WebhookServerProtocol {
  /** Serves `fn` while the stream is consumed; emits the client config, again when it changes. */
  readonly serve: (fn: WebhookFn) => Stream.Stream<ClientConfig, WebhookServerError, KubeApi>;
}

/**
 * Whether a value is a webhook server or tunnel (what `settings.admission.server` must hold).
 *
 * @example
 * WebhookServerProtocol.isServer(settings.admission.server)
 */
export const isServer = (value: unknown): value is WebhookServerProtocol =>
  typeof value === "object" && value !== null && typeof (value as { serve?: unknown }).serve === "function";
