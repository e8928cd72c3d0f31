/**
 * The errors of resource definitions: a schema without an OpenAPI form, an inconsistent
 * definition (no storage version, duplicate versions), an unreadable CRD.
 */
import * as Data from "effect/Data";

/** Why a resource definition or a CRD could not be used. */
export type ResourceErrorReason = "Unsupported" | "InvalidDefinition" | "InvalidCrd";

/**
 * A resource definition could not be turned into a CRD (or a CRD into types); `path` is the field
 * of the schema at fault (`spec.ports[].name`), empty for the definition as a whole.
 */
export class ResourceError extends Data.TaggedError("ResourceError")<{
  readonly reason: ResourceErrorReason;
  readonly path: string;
  readonly message: string;
}> {}
