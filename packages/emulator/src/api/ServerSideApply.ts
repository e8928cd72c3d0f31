/**
 * Server-side apply (`application/apply-patch+yaml`): merging an applied configuration into the
 * live object by the type's list semantics, removing fields the manager applied before and no
 * longer does, ownership conflicts (409 unless `force=true`), and the manager's `Apply` entry.
 */
import * as Result from "effect/Result";
import * as FieldSet from "./FieldSet.ts";
import type { Resolved } from "./internal/Core.ts";
import { asObject, deepEqual, isObject, type JsonObject } from "./internal/Json.ts";
import { formatTime } from "./internal/Time.ts";
import * as ManagedFields from "./ManagedFields.ts";
import { apiVersionOf } from "./ResourceType.ts";
import * as Status from "./Status.ts";
import * as TypeShape from "./TypeShape.ts";

const mergeValue = (
  current: unknown,
  applied: unknown,
  names: ReadonlyArray<string>,
  shape: TypeShape.Shape,
): unknown => {
  if (Array.isArray(applied)) {
    const list = shape.list(names);
    if (list.kind === "atomic" || !Array.isArray(current)) return applied;
    if (list.kind === "set") {
      const out = [...current];
      for (const v of applied) if (!out.some((o) => deepEqual(o, v))) out.push(v);
      return out;
    }
    const out = [...current];
    for (const item of applied) {
      const idx = out.findIndex(
        (o) => isObject(o) && isObject(item) && list.keys.every((k) => deepEqual(o[k], item[k])),
      );
      if (idx < 0) out.push(item);
      else out[idx] = mergeValue(out[idx], item, names, shape);
    }
    return out;
  }
  if (isObject(applied) && isObject(current)) {
    const out: JsonObject = { ...current };
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = mergeValue(out[k], v, [...names, k], shape);
    }
    return out;
  }
  return applied;
};

/** Removes one path from an object (copying on the way). */
const removePath = (value: unknown, els: ReadonlyArray<string>): unknown => {
  const [head, ...rest] = els;
  if (head === undefined) return value;
  if (head.startsWith("f:") && isObject(value)) {
    const k = head.slice(2);
    if (!Object.hasOwn(value, k)) return value;
    const out = { ...value };
    if (rest.length === 0) delete out[k];
    else out[k] = removePath(out[k], rest);
    return out;
  }
  if (Array.isArray(value) && (head.startsWith("k:") || head.startsWith("v:"))) {
    const matches = (item: unknown): boolean => {
      if (head.startsWith("v:")) return deepEqual(item, JSON.parse(head.slice(2)));
      const key = JSON.parse(head.slice(2)) as JsonObject;
      return isObject(item) && Object.entries(key).every(([k, v]) => deepEqual(item[k], v));
    };
    if (rest.length === 0) return value.filter((i) => !matches(i));
    return value.map((i) => (matches(i) ? removePath(i, rest) : i));
  }
  return value;
};

export interface ApplyResult {
  readonly object: JsonObject;
}

/**
 * Applies `applied` (already checked to be an object) for `manager` over `current` (undefined when
 * creating); fails with the apiserver's conflict Status unless forced.
 */
export const apply = (
  resolved: Resolved,
  current: JsonObject | undefined,
  applied: JsonObject,
  manager: string,
  force: boolean,
  now: number,
): Result.Result<JsonObject, Status.ApiError> => {
  const shape = TypeShape.shapeOf(resolved.type);
  const subresource = resolved.subresource;
  const appliedSet = ManagedFields.scoped(FieldSet.of(applied, shape, "apply"), resolved, subresource);
  const base = current ?? {};
  const entries =
    current === undefined ? [] : ManagedFields.entriesForApply(current, resolved, subresource, now);
  const conflicts: Array<{
    readonly manager: string;
    readonly apiVersion: string;
    readonly operation: string;
    readonly path: string;
  }> = [];
  for (const e of entries) {
    if (ManagedFields.sameEntry(e, manager, "Apply", subresource)) continue;
    for (const p of e.fields) {
      if (!appliedSet.has(p)) continue;
      const wanted = FieldSet.lookup(applied, p);
      if (isObject(wanted.value) && !shape.isAtomic(namesOf(p))) continue;
      const live = FieldSet.lookup(base, p);
      if (!live.found || !deepEqual(live.value, wanted.value))
        conflicts.push({ manager: e.manager, apiVersion: e.apiVersion, operation: e.operation, path: p });
    }
  }
  if (conflicts.length > 0 && !force) return Result.fail(conflictError(conflicts));
  const forced = new Set(conflicts.map((c) => c.path));
  const mine = entries.find((e) => ManagedFields.sameEntry(e, manager, "Apply", subresource));
  const others = entries
    .filter((e) => e !== mine)
    .map((e) => ({ ...e, fields: new Set([...e.fields].filter((p) => !forced.has(p))) }));
  let next: unknown = base;
  if (mine !== undefined)
    for (const p of mine.fields)
      if (!appliedSet.has(p) && !others.some((o) => o.fields.has(p))) next = removePath(next, p.split("\n"));
  next = mergeValue(next, applied, [], shape);
  const entry: ManagedFields.Entry = {
    manager,
    operation: "Apply",
    apiVersion: apiVersionOf(resolved.type.group, resolved.version),
    // An apply that changes no value leaves the time as it was (none for a new manager).
    time: deepEqual(withoutManagedFields(next), withoutManagedFields(base))
      ? (mine?.time ?? "")
      : mine !== undefined && setsEqual(mine.fields, appliedSet)
        ? mine.time
        : formatTime(now),
    subresource,
    fields: appliedSet,
  };
  const all =
    mine === undefined
      ? [...others, entry]
      : entries.map((e) =>
          e === mine
            ? entry
            : (others.find(
                (o) =>
                  o.manager === e.manager && o.operation === e.operation && o.subresource === e.subresource,
              ) ?? e),
        );
  return Result.succeed(ManagedFields.withEntries(next as JsonObject, all, resolved.type.custom));
};

const withoutManagedFields = (obj: unknown): unknown => {
  if (!isObject(obj)) return obj;
  const { managedFields: _m, resourceVersion: _r, ...meta } = asObject(obj.metadata);
  return { ...obj, metadata: meta };
};

/** The field names along a path (list item elements skipped), for shape lookups. */
const namesOf = (path: string): Array<string> =>
  path
    .split("\n")
    .filter((el) => el.startsWith("f:"))
    .map((el) => el.slice(2));

const setsEqual = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size === b.size && [...a].every((x) => b.has(x));

const conflictError = (
  conflicts: ReadonlyArray<{
    readonly manager: string;
    readonly apiVersion: string;
    readonly operation: string;
    readonly path: string;
  }>,
): Status.ApiError => {
  const who = (c: { manager: string; apiVersion: string; operation: string }) =>
    c.operation === "Update" ? `"${c.manager}" using ${c.apiVersion}` : `"${c.manager}"`;
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${who(c)}`,
    field: FieldSet.render(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0] as (typeof conflicts)[number];
    message = `Apply failed with 1 conflict: conflict with ${who(c)}: ${FieldSet.render(c.path)}`;
  } else {
    const groups = new Map<string, Array<string>>();
    for (const c of conflicts) groups.set(who(c), [...(groups.get(who(c)) ?? []), FieldSet.render(c.path)]);
    message = `Apply failed with ${conflicts.length} conflicts: ${[...groups]
      .map(([w, paths]) => `conflicts with ${w}:\n${paths.map((p) => `- ${p}`).join("\n")}`)
      .join("\n")}`;
  }
  return Status.make(409, "Conflict", message, { causes });
};
