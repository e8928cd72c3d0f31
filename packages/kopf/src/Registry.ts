/**
 * Registries as the facade offers them: `@kopf/registry`'s registries with activities typed for
 * the operator settings and kubernetes-fluent-client model classes accepted as resources.
 */
import { Registry as Core } from "@kopf/registry";
import type { OperatorSettings, Settings } from "@kopf/settings";
import { EventsError, warn } from "./Events.ts";
import { resolveModel } from "./node/KfcModels.ts";

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
 * Posts a body of a typed resource that does not decode as a Warning event about it. Outside a
 * running operator (a handler called by a test) there is nowhere to post: the log line remains.
 */
const onUndecodable = (body: unknown, message: string): void => {
  try {
    warn(body as Parameters<typeof warn>[0], { reason: "Undecodable", message });
  } catch (error) {
    if (!(error instanceof EventsError)) throw error;
  }
};

/**
 * A new, empty registry that also accepts kubernetes-fluent-client model classes as resources,
 * and posts a Warning event about each body of a typed resource that does not decode.
 *
 * @example
 * const registry = kopf.Registry.make()
 * registry.on.create(kind.Pod, function podCreated({ spec }) { return { containers: spec.containers?.length } })
 */
export const make = (options: Core.RegistryOptions = {}): Registry =>
  Core.make<OperatorSettings, Settings.MutableSettings>({ resolveModel, onUndecodable, ...options });
