/** Public API of @kopf/engines: the engines plugged into the runtime's seams. */
export * as Daemons from "./Daemons.ts";
export * as Identity from "./Identity.ts";
export * as Indexing from "./Indexing.ts";
export * as Indices from "./Indices.ts";
export * as Liveness from "./Liveness.ts";
export { LivenessError } from "./Liveness.ts";
export * as Environment from "./node/Environment.ts";
export * as LivenessServer from "./node/LivenessServer.ts";
export * as Operating from "./Operating.ts";
export * as Peering from "./Peering.ts";
export { PeeringError } from "./Peering.ts";
export * as PeeringCrds from "./PeeringCrds.ts";
export * as Peers from "./Peers.ts";
export * as Presence from "./Presence.ts";
