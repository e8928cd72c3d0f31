/** Public API of @kopf/conformance: clusters as a test parameter, and the differential suite. */

export { ClusterTarget as Target } from "@kopf/testing";
export * as AuditLog from "./AuditLog.ts";
export * as Cluster from "./Cluster.ts";
export * as Compare from "./Compare.ts";
export * as Conformance from "./Conformance.ts";
export * as Connection from "./Connection.ts";
export * as Deviations from "./Deviations.ts";
export * as Interaction from "./Interaction.ts";
export * as Normalise from "./Normalise.ts";
export * as Runner from "./Runner.ts";
export * as Sequences from "./sequences/index.ts";
export * as WebhookServer from "./WebhookServer.ts";
