/**
 * Labelling of children (Kopf's `kopf.label`, docs/behaviour/hierarchies.md): the given labels are set on every
 * object's `metadata.labels` — only the missing keys, or all of them when `forced` — and on the
 * sub-objects at the `nested` paths (e.g. `spec.template` of a Deployment, `spec.jobTemplate` of
 * a CronJob), missing paths being ignored.
 */
import { metadataOf, nestedPaths, walk } from "./internal/walk.ts";

/** Options of {@link label}. */
export interface LabelOptions {
  /** Overwrite labels the objects already have (default: only missing keys are set). */
  readonly forced?: boolean;
  /** Field paths of sub-objects to label too (`"spec.template"`, or several). */
  readonly nested?: string | Iterable<string>;
  /** Deprecated alias of `forced` (as in Kopf); `forced` wins when both are given. */
  readonly force?: boolean;
}

/**
 * Sets `labels` on the objects (in place). A `null` value sets the label to null, which a merge
 * patch or a server-side apply reads as "remove".
 *
 * @example
 * ```ts
 * Labels.label(deployment, { app: "web" }, { nested: "spec.template" })
 * ```
 */
export const label = (
  objs: unknown,
  labels: Readonly<Record<string, string | null>>,
  options: LabelOptions = {},
): void => {
  const forced = options.forced ?? options.force ?? false;
  for (const obj of walk(objs, nestedPaths(options.nested))) {
    const meta = metadataOf(obj);
    if (typeof meta.labels !== "object" || meta.labels === null) meta.labels = {};
    const current = meta.labels as Record<string, string | null>;
    for (const [key, value] of Object.entries(labels)) {
      if (forced || !Object.hasOwn(current, key)) current[key] = value;
    }
  }
};
