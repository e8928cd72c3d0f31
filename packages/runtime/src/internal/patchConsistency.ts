/**
 * Whether the API server's answer to a merge patch reflects the patch (Kopf's inconsistency
 * check after patching, docs/behaviour/processing.md#patching): a left-scoped diff of the patch against the
 * response, i.e. every field we asked for must be there with the value we asked for (fields set
 * to `null` must be gone). Empty `metadata.annotations`, `metadata.finalizers` and
 * `metadata.labels` are pruned by Kubernetes and do not count.
 */
import { Diff, type FieldPath } from "@kopf/structs";

const KNOWN: ReadonlyArray<string> = ["metadata.annotations", "metadata.finalizers", "metadata.labels"];

/** Python's truthiness, as Kopf's filter uses it: empty containers, `""`, `0`, `false`, `null` are falsy. */
const truthy = (value: unknown): boolean => {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
};

const dotted = (field: FieldPath.FieldPath): string => field.join(".");

/**
 * The differences between a merge patch and the body the server answered with, except the known
 * and harmless ones.
 *
 * @example
 * inconsistencies({ spec: { x: 1 } }, { spec: { x: 2 } }) // [{ op: "change", field: ["spec", "x"], old: 1, new: 2 }]
 * inconsistencies({ metadata: { finalizers: [] } }, { metadata: {} }) // []
 */
export const inconsistencies = (patch: unknown, response: unknown): Diff.Diff =>
  Diff.diff(patch, response, "left").filter(
    (item) => truthy(item.old) || truthy(item.new) || !KNOWN.includes(dotted(item.field)),
  );
