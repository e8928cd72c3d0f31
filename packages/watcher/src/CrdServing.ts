/**
 * What a CustomResourceDefinition's watch event says the API server's discovery will show once it
 * has caught up. A real API server sends a CRD's ADDED event (and the MODIFIED one with
 * `Established`) before discovery serves the new kind, and a DELETED event while discovery may
 * still list it: a rescan right at the event can see the old state, and no later CRD event comes
 * to correct it. The resource observer rescans until the expectation {@link isMet} (or gives up
 * after a while). Pure and total: any object, however malformed, has an expectation.
 */
import type { Resource } from "@kopf/structs";

/** The resources discovery should list, or no longer list, after a CRD event. */
export type Expectation =
  | { readonly _tag: "Unknown" }
  | {
      readonly _tag: "Served";
      readonly group: string;
      readonly plural: string;
      readonly versions: ReadonlyArray<string>;
    }
  | { readonly _tag: "Gone"; readonly group: string; readonly plural: string };

/** Nothing to wait for: a rescan's first result stands. */
export const unknown: Expectation = { _tag: "Unknown" };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The expectation of a CRD watch event: DELETED → its kind gone; ADDED/MODIFIED → its kind served
 * in every served version; `Unknown` when the object does not say (no group, plural or versions).
 *
 * @example
 * ```ts
 * CrdServing.expectation("ADDED", { spec: { group: "kopf.dev", names: { plural: "kopfexamples" }, versions: [{ name: "v1", served: true }] } })
 * // { _tag: "Served", group: "kopf.dev", plural: "kopfexamples", versions: ["v1"] }
 * ```
 */
export const expectation = (type: "ADDED" | "MODIFIED" | "DELETED", object: unknown): Expectation => {
  const spec = isObject(object) && isObject(object.spec) ? object.spec : {};
  const group = typeof spec.group === "string" ? spec.group : "";
  const plural = isObject(spec.names) && typeof spec.names.plural === "string" ? spec.names.plural : "";
  if (group === "" || plural === "") return unknown;
  if (type === "DELETED") return { _tag: "Gone", group, plural };
  const versions = (Array.isArray(spec.versions) ? spec.versions : [])
    .filter(isObject)
    .filter((version) => version.served !== false && typeof version.name === "string")
    .map((version) => version.name as string);
  return versions.length === 0
    ? { _tag: "Gone", group, plural }
    : { _tag: "Served", group, plural, versions };
};

/**
 * Whether a scan's resources show what the event said.
 *
 * @example
 * ```ts
 * CrdServing.isMet({ _tag: "Gone", group: "kopf.dev", plural: "kopfexamples" }, scanned) // true once unlisted
 * ```
 */
export const isMet = (expected: Expectation, scanned: ReadonlyArray<Resource.Resource>): boolean => {
  switch (expected._tag) {
    case "Unknown":
      return true;
    case "Gone":
      return !scanned.some((r) => r.group === expected.group && r.plural === expected.plural);
    case "Served":
      return expected.versions.every((version) =>
        scanned.some(
          (r) => r.group === expected.group && r.plural === expected.plural && r.version === version,
        ),
      );
  }
};
