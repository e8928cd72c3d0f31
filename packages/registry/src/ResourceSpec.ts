/**
 * The resource notations registration calls accept, turned into `Selector`s (docs/behaviour/registration.md#resource-selectors):
 * a string (`"kopfexamples"`, `"kopfexamples.kopf.dev"`, `"kex.v1.kopf.dev"`), an array of two
 * or three strings (`["kopf.dev/v1", "kopfexamples"]`, `["kopf.dev", "v1", "kopfexamples"]`),
 * an object of names (`{ group, version, plural | kind | singular | shortcut | category }`),
 * `EVERYTHING`, a predicate over resources (optionally `{ group, version, predicate }`), or a
 * model class resolved by a `ModelResolver` (the `kopf` facade resolves kubernetes-fluent-client
 * kinds), or a typed resource of `@kopf/resources` (its served version, with the body type).
 */
import type { CustomResource } from "@kopf/resources";
import { Selector } from "@kopf/structs";
import * as Result from "effect/Result";
import { RegistrationError } from "./Errors.ts";
import * as TypedHandlers from "./TypedHandlers.ts";

/** Resource names, as keyword arguments of Kopf's selectors. */
export interface ResourceNames {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly plural?: string;
  readonly singular?: string;
  readonly shortcut?: string;
  readonly category?: string;
}

/** A predicate choosing resources (core and `events.k8s.io` events are never chosen). */
export type ResourcePredicate = Selector.ResourcePredicate;

/** A predicate restricted to a group and/or version. */
export interface PredicateSpec {
  readonly group?: string;
  readonly version?: string;
  readonly predicate: ResourcePredicate;
}

/** A model class whose instances are the objects' bodies (e.g. `kind.Pod`). */
export type ModelClass<B> = abstract new (...args: never) => B;

/** Resolves a model class to resource names, or `undefined` when it does not know the class. */
export type ModelResolver = (model: Function) => ResourceNames | undefined;

/**
 * Any resource notation; `B` is the body type a model class carries.
 *
 * @example
 * const specs: Array<ResourceSpec> = [
 *   "kopfexamples.kopf.dev",
 *   ["kopf.dev", "v1", "kopfexamples"],
 *   { group: "kopf.dev", version: "v1", kind: "KopfExample" },
 *   Selector.EVERYTHING,
 * ]
 */
export type ResourceSpec<B = unknown> =
  | string
  | readonly [string, string]
  | readonly [string, string, string]
  | ResourceNames
  | typeof Selector.EVERYTHING
  | ResourcePredicate
  | PredicateSpec
  | ModelClass<B>
  | CustomResource.Served<B>;

const fail = (reason: RegistrationError["reason"], message: string) =>
  Result.fail(new RegistrationError({ reason, message }));

/**
 * Whether a function is an ES class (a model class rather than a resource predicate).
 *
 * @example
 * isModelClass(class V1Pod {}) // true
 * isModelClass((r) => r.plural === "pods") // false
 */
export const isModelClass = (fn: Function): boolean =>
  /^class[\s{]/.test(Function.prototype.toString.call(fn));

const NAME_KEYS = ["group", "version", "kind", "plural", "singular", "shortcut", "category"] as const;

const fromSelectorError = (error: { readonly message: string }) =>
  new RegistrationError({ reason: "InvalidResource", message: error.message });

const parse = (
  positional: ReadonlyArray<Selector.Positional>,
  names: Selector.SelectorNames,
): Result.Result<Selector.Selector, RegistrationError> =>
  Result.mapError(Selector.parse(positional, names), fromSelectorError);

/**
 * Turns a resource notation into a selector, validated as Kopf does (one name, no empty names,
 * at most three positional parts).
 *
 * @example
 * toSelector("kopfexamples.kopf.dev") // Result.succeed(Selector { group: "kopf.dev", anyName: "kopfexamples" })
 * toSelector({ plural: "kex", kind: "KopfExample" }) // Result.fail(RegistrationError { reason: "InvalidResource" })
 */
export const toSelector = (
  spec: unknown,
  resolveModel?: ModelResolver,
): Result.Result<Selector.Selector, RegistrationError> => {
  if (typeof spec === "string" || spec === Selector.EVERYTHING) return parse([spec], {});
  if (Array.isArray(spec)) {
    if (
      spec.length < 1 ||
      spec.length > 3 ||
      !spec.every((p) => typeof p === "string" || p === Selector.EVERYTHING)
    ) {
      return fail(
        "InvalidResource",
        "A resource array must hold 1 to 3 strings: [group/version, name] or [group, version, name].",
      );
    }
    return parse(spec as ReadonlyArray<string>, {});
  }
  if (typeof spec === "function") {
    const names = resolveModel?.(spec);
    if (names !== undefined) return toSelector(names);
    if (isModelClass(spec)) {
      return fail(
        "UnresolvedModel",
        `The model class ${spec.name || "(anonymous)"} cannot be resolved to a resource: ` +
          "register its kind (kubernetes-fluent-client's RegisterKind) and use the kopf facade, " +
          "or pass { group, version, kind }.",
      );
    }
    return parse([spec as ResourcePredicate], {});
  }
  if (TypedHandlers.isServed(spec)) return parse([], TypedHandlers.namesOf(spec));
  if (typeof spec === "object" && spec !== null) {
    const record = spec as Readonly<Record<string, unknown>>;
    const unknown = Object.keys(record).filter(
      (k) =>
        !(NAME_KEYS as ReadonlyArray<string>).includes(k) && k !== "predicate" && record[k] !== undefined,
    );
    if (unknown.length > 0) {
      return fail(
        "InvalidResource",
        `Unknown resource fields: ${unknown.join(", ")}; accepted: ${NAME_KEYS.join(", ")}, predicate.`,
      );
    }
    for (const key of NAME_KEYS) {
      if (record[key] !== undefined && typeof record[key] !== "string") {
        return fail("InvalidResource", `The resource field ${key} must be a string.`);
      }
    }
    const { predicate, ...names } = record as ResourceNames & { readonly predicate?: unknown };
    if (predicate !== undefined && typeof predicate !== "function") {
      return fail("InvalidResource", "The resource predicate must be a function.");
    }
    return predicate === undefined
      ? parse([], names)
      : parse([], { ...names, fn: predicate as ResourcePredicate });
  }
  return fail("InvalidResource", `Cannot interpret ${String(spec)} as a resource.`);
};

/**
 * The distinct selectors, in first-seen order: equal when printed alike and, for predicate
 * selectors (whose printed form only names the function), with the very same predicate.
 *
 * @example
 * distinct([kex, samePrintedKex, pods]) // [kex, pods]
 */
export const distinct = (selectors: ReadonlyArray<Selector.Selector>): ReadonlyArray<Selector.Selector> => {
  const seen = new Map<unknown, Set<string>>();
  return selectors.filter((selector) => {
    const printed = Selector.format(selector);
    const keys = seen.get(selector.fn) ?? new Set<string>();
    seen.set(selector.fn, keys);
    if (keys.has(printed)) return false;
    keys.add(printed);
    return true;
  });
};
