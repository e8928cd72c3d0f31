/**
 * `kopf.resource(...)`: declares a custom resource once — names, versions with `spec`/`status`
 * Effect Schemas, printer columns, subresources, conversion — in the default registry. Handlers
 * registered on the value get decoded, typed bodies; `kopf crd` prints its CRD; the admission
 * server serves its conversion webhook. `kopf.Resources` holds the Kubernetes schema markers.
 */
import { RegistrationError } from "@kopf/registry";
import { CustomResource } from "@kopf/resources";
import * as Result from "effect/Result";
import { getDefaultRegistry } from "./DefaultRegistry.ts";

/**
 * Declares a custom resource in the default registry and returns it; an inconsistent definition
 * throws `RegistrationError` at import time, as registration mistakes do.
 *
 * @example
 * import * as Schema from "effect/Schema";
 * import * as kopf from "kopf"
 *
 * export const KopfExample = kopf.resource({
 *   group: "kopf.dev", kind: "KopfExample", plural: "kopfexamples", shortNames: ["kex"],
 *   versions: {
 *     v1: {
 *       spec: Schema.Struct({ size: Schema.Int.pipe(kopf.Resources.withDefault(1)) }),
 *       status: Schema.Struct({ phase: Schema.optionalKey(Schema.String) }),
 *     },
 *   },
 *   storage: "v1",
 * })
 * kopf.on.create(KopfExample, function created({ spec, patch }) {
 *   patch.status.phase = `size ${spec.size}` // spec.size: number, no casts
 * })
 */
export const resource = <const V extends CustomResource.Versions, const S extends keyof V & string>(
  definition: CustomResource.Definition<V, S>,
): CustomResource.CustomResource<V, S> => {
  const defined = CustomResource.define(definition);
  if (Result.isFailure(defined))
    throw new RegistrationError({ reason: "InvalidResource", message: defined.failure.message });
  getDefaultRegistry().declare(defined.success);
  return defined.success;
};
