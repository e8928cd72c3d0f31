/** Public API of @kopf/engines: the engines plugged into the runtime's seams. */
export * as Daemons from "./Daemons.ts";
export * as Indexing from "./Indexing.ts";
export * as Indices from "./Indices.ts";
export * as Liveness from "./Liveness.ts";
export { LivenessError } from "./Liveness.ts";
export * as LivenessServer from "./node/LivenessServer.ts";
export * as Operating from "./Operating.ts";
