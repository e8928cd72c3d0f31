/**
 * What every resource-level cause carries besides the body: the resource kind, the patch
 * accumulated for this cycle, the object's logger and memo, and the operator's indices (Kopf's
 * `ResourceCause`). The cause shapes themselves are the registry's matching inputs, which the
 * modules of this package construct.
 */
import type { HandlerCause } from "@kopf/registry";

/** The per-object context of a processing cycle, shared by the causes built in it. */
export type ResourceContext = Omit<HandlerCause.ResourceCauseBase, "body">;
