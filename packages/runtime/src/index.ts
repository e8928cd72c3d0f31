/** Public API of this package. */
export * as Activities from "./execution/Activities.ts";
export { ActivityError } from "./execution/Activities.ts";
export * as Ambient from "./execution/Ambient.ts";
export * as ErrorModes from "./execution/ErrorModes.ts";
export { HandlerChildrenRetry } from "./execution/ErrorModes.ts";
export * as Execution from "./execution/Execution.ts";
export * as Handling from "./execution/Handling.ts";
export * as Invocation from "./execution/Invocation.ts";
export { HandlerFailure } from "./execution/Invocation.ts";
export * as AmbientHandlers from "./execution/node/AmbientHandlers.ts";
export * as Probes from "./execution/Probes.ts";
export * as Subhandling from "./execution/Subhandling.ts";
export { SubhandlingError } from "./execution/Subhandling.ts";
