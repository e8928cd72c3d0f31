/**
 * The admission webhook servers and tunnels of `@kopf/admission`, under Kopf's names, for
 * `settings.admission.server` (docs/behaviour/admission.md#requests): `kopf.WebhookServer`, the k3d, minikube and Docker
 * Desktop variants, `kopf.WebhookAutoServer`, `kopf.WebhookAutoTunnel` and
 * `kopf.WebhookNgrokTunnel`. The operator serves them when it has `on.validate`/`on.mutate`
 * handlers.
 */
import {
  WebhookAutoServer as Auto,
  WebhookServer as Local,
  WebhookNgrokTunnel as Ngrok,
} from "@kopf/admission";

/** Options of the local webhook servers (address, port, path, certificates, …). */
export type WebhookServerOptions = Local.WebhookServerOptions;
/** Options of the ngrok tunnel. */
export type NgrokOptions = Ngrok.NgrokOptions;

/**
 * An HTTPS server for the webhooks (self-signed certificates unless files are given).
 *
 * @example
 * ```ts
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = kopf.WebhookServer({ port: 9443 })
 *   settings.admission.managed = "auto.kopf.dev"
 * })
 * ```
 */
export const WebhookServer = Local.WebhookServer;
/** A webhook server reachable from a k3d/k3s cluster (`host.k3d.internal`). */
export const WebhookK3dServer = Local.WebhookK3dServer;
/** A webhook server reachable from a minikube cluster (`host.minikube.internal`). */
export const WebhookMinikubeServer = Local.WebhookMinikubeServer;
/** A webhook server reachable from Docker Desktop's cluster (`host.docker.internal`). */
export const WebhookDockerDesktopServer = Local.WebhookDockerDesktopServer;
/** A webhook server for the detected local cluster (k3d, minikube, Docker Desktop), else plain. */
export const WebhookAutoServer: typeof Auto.WebhookAutoServer = Auto.WebhookAutoServer;
/** A local server for a detected local cluster, else an ngrok tunnel. */
export const WebhookAutoTunnel: typeof Auto.WebhookAutoTunnel = Auto.WebhookAutoTunnel;
/** An ngrok tunnel to a local server (needs an installed `ngrok` binary). */
export const WebhookNgrokTunnel = Ngrok.WebhookNgrokTunnel;
