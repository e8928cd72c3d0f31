/**
 * The one error of the hierarchies kit: a misuse reported at the call, as Kopf raises its
 * `TypeError`/`LookupError` at once. These helpers are called by user code building children, so
 * (like registration calls) they throw this tagged error instead of returning a failure value.
 */
import * as Data from "effect/Data";

/**
 * Why a hierarchies call could not do its work.
 *
 * - `NotAnObject`: something other than a Kubernetes object (or nested iterables of them) was
 *   given (Kopf's `TypeError: K8s object class is not supported`).
 * - `NoOwner`: no owner was passed and none is known (called outside of a handler).
 * - `NoName`: no name to derive the children's names from.
 *
 * @example
 * ```ts
 * try { Hierarchies.adopt(child) } catch (e) { if (e instanceof HierarchyError) e.reason } // "NoOwner"
 * ```
 */
export class HierarchyError extends Data.TaggedError("HierarchyError")<{
  readonly reason: "NotAnObject" | "NoOwner" | "NoName";
  readonly message: string;
}> {}
