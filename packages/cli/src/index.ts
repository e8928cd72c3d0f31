/** Public API of @kopf/cli: the `kopf` command as functions (the binary is `src/main.ts`). */
export * as Cli from "./Cli.ts";
export * as Loading from "./Loading.ts";
export * as Manifests from "./Manifests.ts";
export * as ManifestsCommand from "./ManifestsCommand.ts";
export * as PeeringCommands from "./PeeringCommands.ts";
export * as Rbac from "./Rbac.ts";
export * as ResourceCommands from "./ResourceCommands.ts";
export * as RunArgs from "./RunArgs.ts";
export * as ServedResources from "./ServedResources.ts";
