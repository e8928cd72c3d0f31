/** Public API of @kopf/admission: admission webhooks — reviews, responses, serving, managed configurations, servers. */
export * as Response from "./Response.ts";
export * as Review from "./Review.ts";
export { ReviewError } from "./Review.ts";
export * as Serving from "./Serving.ts";
export { ServingError } from "./Serving.ts";
export type { ClientConfig, ClientConfigService } from "./ClientConfig.ts";
export * as ManagedWebhooks from "./ManagedWebhooks.ts";
