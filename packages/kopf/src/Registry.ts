/**
 * Registries as the facade offers them: `@kopf/registry`'s registries with activities typed for
 * the operator settings and kubernetes-fluent-client model classes accepted as resources.
 */
import { Registry as Core } from "@kopf/registry";
import type { OperatorSettings, Settings } from "@kopf/settings";
import { resolveModel } from "./KfcModels.ts";

/**
 * A registry of handlers whose activities receive the operator settings, mutable in startup
 * handlers (the operator validates them once the startup activity succeeded).
 */
export type Registry = Core.Registry<OperatorSettings, Settings.MutableSettings>;

/** The resource-level buckets of a registry. */
export type Bucket = Core.Bucket;

/** A typed resource declared in a registry (`kopf.resource`). */
export type DeclaredResource = Core.DeclaredResource;

/**
 * A new, empty registry that also accepts kubernetes-fluent-client model classes as resources.
 *
 * @example
 * const registry = kopf.Registry.make()
 * registry.on.create(kind.Pod, function podCreated({ spec }) { return { containers: spec.containers?.length } })
 */
export const make = (options: Core.RegistryOptions = {}): Registry =>
  Core.make<OperatorSettings, Settings.MutableSettings>({ resolveModel, ...options });
