/** Public API of @kopf/admission: admission webhooks — reviews, responses, serving, managed configurations, servers. */

export { CertificateError, Certificates } from "@kopf/client";
export * as Admission from "./Admission.ts";
export { AdmissionRunError } from "./Admission.ts";
export * as AdmissionMetrics from "./AdmissionMetrics.ts";
export * as Bounded from "./Bounded.ts";
export type { ClientConfig, ClientConfigService } from "./ClientConfig.ts";
export * as ClusterDetection from "./ClusterDetection.ts";
export * as ConfigManager from "./ConfigManager.ts";
export { ConfigManagerError } from "./ConfigManager.ts";
export * as Conversion from "./Conversion.ts";
export * as Endpoint from "./Endpoint.ts";
export * as JsonDepth from "./JsonDepth.ts";
export * as WebhookAutoServer from "./live/WebhookAutoServer.ts";
export * as WebhookNgrokTunnel from "./live/WebhookNgrokTunnel.ts";
export * as WebhookServer from "./live/WebhookServer.ts";
export * as ManagedWebhooks from "./ManagedWebhooks.ts";
export * as Response from "./Response.ts";
export * as Review from "./Review.ts";
export { ReviewError } from "./Review.ts";
export * as Serving from "./Serving.ts";
export { ServingError } from "./Serving.ts";
export * as WebhookServerProtocol from "./WebhookServerProtocol.ts";
export { WebhookServerError } from "./WebhookServerProtocol.ts";
