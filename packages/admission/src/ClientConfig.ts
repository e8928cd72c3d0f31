/**
 * How the API server reaches the operator's webhooks (Kopf's `WebhookClientConfig`): a URL, or a
 * service reference, with the CA bundle to verify the server. Webhook servers and tunnels report
 * these; managed configurations copy them.
 */

/** A service reference (for operators running in the cluster behind a Service). */
export interface ClientConfigService {
  readonly namespace: string;
  readonly name: string;
  readonly path?: string | undefined;
  readonly port?: number | undefined;
}

/** Where the webhooks are: `url` and/or `service`, and the base64 PEM CA bundle. */
export interface ClientConfig {
  readonly url?: string | undefined;
  /** base64 of the PEM CA bundle (absent for publicly trusted endpoints, e.g. tunnels). */
  readonly caBundle?: string | undefined;
  readonly service?: ClientConfigService | undefined;
}
