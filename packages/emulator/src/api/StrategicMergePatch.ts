/**
 * Strategic merge patch for built-in types: lists merge by their patch merge keys (containers,
 * env, volumes by name; ports by port; conditions by type; ownerReferences by uid; finalizers as a
 * set), with the `$patch`, `$retainKeys`, `$deleteFromPrimitiveList` and `$setElementOrder` directives.
 */
import * as Result from "effect/Result";
import { isObject, type JsonObject } from "./internal/Json.ts";

type Strategy = { readonly kind: "key"; readonly key: string } | { readonly kind: "set" } | undefined;

/** The patch strategy of a list field, from its name and its parent's name. */
export const strategyFor = (parent: string, field: string): Strategy => {
  switch (field) {
    case "containers":
    case "initContainers":
    case "ephemeralContainers":
    case "env":
    case "volumes":
    case "imagePullSecrets":
    case "volumeDevices":
      return { kind: "key", key: field === "volumeDevices" ? "devicePath" : "name" };
    case "volumeMounts":
      return { kind: "key", key: "mountPath" };
    case "ports":
      return { kind: "key", key: parent === "spec" ? "port" : "containerPort" };
    case "conditions":
      return { kind: "key", key: "type" };
    case "webhooks":
      return { kind: "key", key: "name" };
    case "ownerReferences":
      return { kind: "key", key: "uid" };
    case "hostAliases":
      return { kind: "key", key: "ip" };
    case "topologySpreadConstraints":
      return { kind: "key", key: "topologyKey" };
    case "finalizers":
      return { kind: "set" };
    default:
      return undefined;
  }
};

const mergeList = (
  parent: string,
  field: string,
  original: unknown,
  patch: ReadonlyArray<unknown>,
): Result.Result<unknown, string> => {
  const strategy = strategyFor(parent, field);
  const replace = patch.find((p) => isObject(p) && p.$patch === "replace");
  if (replace !== undefined) return Result.succeed(patch.filter((p) => p !== replace));
  const base = Array.isArray(original) ? original : [];
  if (strategy === undefined) return Result.succeed(patch);
  // The merged list holds the patch's items first, in patch order, then the items only the
  // original has, as the apiserver lays a merged list out when no $setElementOrder is given.
  if (strategy.kind === "set") {
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const head = patch.filter((p, i) => patch.findIndex((q) => same(p, q)) === i);
    return Result.succeed([...head, ...base.filter((o) => !head.some((p) => same(o, p)))]);
  }
  const key = strategy.key;
  const sameKey = (o: unknown, item: JsonObject) =>
    isObject(o) && JSON.stringify(o[key]) === JSON.stringify(item[key]);
  const head: Array<unknown> = [];
  const mentioned: Array<JsonObject> = [];
  for (const item of patch) {
    if (!isObject(item))
      return Result.fail(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
    if (!Object.hasOwn(item, key))
      return Result.fail(
        `map: map[${Object.keys(item).join(" ")}] does not contain declared merge key: ${key}`,
      );
    mentioned.push(item);
    if (item.$patch === "delete") continue;
    const existing = base.find((o) => sameKey(o, item));
    const merged = mergeObject(field, existing ?? {}, item);
    if (Result.isFailure(merged)) return merged;
    head.push(merged.success);
  }
  return Result.succeed([...head, ...base.filter((o) => !mentioned.some((item) => sameKey(o, item)))]);
};

const mergeObject = (name: string, original: unknown, patch: JsonObject): Result.Result<unknown, string> => {
  if (patch.$patch === "replace") {
    const { $patch: _, ...rest } = patch;
    return Result.succeed(stripDirectives(rest));
  }
  if (patch.$patch === "delete") return Result.succeed(undefined);
  const out: JsonObject = isObject(original) ? { ...original } : {};
  const retain = Array.isArray(patch.$retainKeys) ? new Set(patch.$retainKeys.map(String)) : undefined;
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key === "$retainKeys" || key.startsWith("$setElementOrder/")) continue;
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      const field = key.slice("$deleteFromPrimitiveList/".length);
      const remove = new Set((Array.isArray(value) ? value : []).map((v) => JSON.stringify(v)));
      if (Array.isArray(out[field]))
        out[field] = (out[field] as Array<unknown>).filter((v) => !remove.has(JSON.stringify(v)));
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    if (Array.isArray(value)) {
      const merged = mergeList(name, key, out[key], value);
      if (Result.isFailure(merged)) return merged;
      out[key] = merged.success;
    } else if (isObject(value)) {
      const merged = mergeObject(key, out[key], value);
      if (Result.isFailure(merged)) return merged;
      if (merged.success === undefined) delete out[key];
      else out[key] = merged.success;
    } else out[key] = value;
  }
  if (retain !== undefined) for (const k of Object.keys(out)) if (!retain.has(k)) delete out[k];
  return Result.succeed(out);
};

const stripDirectives = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("$")) out[k] = stripDirectives(v);
  return out;
};

/**
 * Applies a strategic merge patch to a built-in object.
 *
 * @example
 * apply({ spec: { containers: [{ name: "a", image: "x" }] } }, { spec: { containers: [{ name: "a", image: "y" }] } })
 * // Result.succeed({ spec: { containers: [{ name: "a", image: "y" }] } })
 */
export const apply = (original: JsonObject, patch: unknown): Result.Result<unknown, string> => {
  if (!isObject(patch))
    return Result.fail("json: cannot unmarshal into Go value of type map[string]interface {}");
  const merged = mergeObject("", original, patch);
  return Result.isFailure(merged) ? merged : Result.succeed(stripDirectives(merged.success ?? {}));
};
