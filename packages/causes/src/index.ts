/** Public API of @kopf/causes: cause detection, the inputs of a processing cycle, the finalizer decision, the cycle's handler selection and its plan. */
export * as CauseInputs from "./CauseInputs.ts";
export * as ChangeCause from "./ChangeCause.ts";
export * as ConsistencyGate from "./ConsistencyGate.ts";
export * as CyclePlan from "./CyclePlan.ts";
export * as CycleSelection from "./CycleSelection.ts";
export * as FinalizerDecision from "./FinalizerDecision.ts";
export * as ResourceCause from "./ResourceCause.ts";
export * as ResourceMemory from "./ResourceMemory.ts";
export * as SpawningCause from "./SpawningCause.ts";
export * as WatchingCause from "./WatchingCause.ts";
