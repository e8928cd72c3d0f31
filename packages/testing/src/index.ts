/** Public API of this package: operators under test, on the emulator (`@kopf/emulator`) or any cluster. */
// KopfRunner: an operator under test, in-process, against the emulator or any cluster.
export * as Applying from "./runner/Applying.ts";
export * as Clusters from "./runner/Clusters.ts";
export * as ClusterTarget from "./runner/ClusterTarget.ts";
export * as KopfRunner from "./runner/KopfRunner.ts";
export * as Requests from "./runner/Requests.ts";
