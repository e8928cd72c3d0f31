/** Public API of @kopf/engines: the engines plugged into the runtime's seams. */
export * as Daemons from "./Daemons.ts";
