/**
 * Resource selectors: what handlers are registered for (`"kopfexamples.kopf.dev"`,
 * `["apps", "v1", "deployments"]`, `{ kind: "Pod" }`, `EVERYTHING`, a predicate), parsed with
 * Kopf's rules and messages (docs/behaviour/registration.md#resource-selectors) and matched against discovered resources (docs/behaviour/registration.md#resource-selectors).
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import { blank, interpretPositional } from "./internal/selectorArgs.ts";
import type { Resource } from "./Resource.ts";

/** Selects every resource except Kubernetes events. */
export const EVERYTHING: unique symbol = Symbol.for("@kopf/structs/Selector.EVERYTHING");

/** The type of `EVERYTHING`. */
export type Everything = typeof EVERYTHING;

/** A predicate choosing resources; events are never chosen. */
export type ResourcePredicate = (resource: Resource) => boolean;

/** A positional part of a selector, as in `kopf.on.create("kopf.dev", "v1", "kopfexamples")`. */
export type Positional = string | Everything | ResourcePredicate | null | undefined;

/** Keyword names of a selector. */
export interface SelectorNames {
  readonly group?: string | null | undefined;
  readonly version?: string | null | undefined;
  readonly kind?: string | null | undefined;
  readonly plural?: string | null | undefined;
  readonly singular?: string | null | undefined;
  readonly shortcut?: string | null | undefined;
  readonly category?: string | null | undefined;
  readonly anyName?: string | Everything | null | undefined;
  readonly fn?: ResourcePredicate | null | undefined;
}

/** A parsed selector: at most a group and a version, and exactly one name or predicate. */
export interface Selector {
  readonly group: string | undefined;
  readonly version: string | undefined;
  readonly kind: string | undefined;
  readonly plural: string | undefined;
  readonly singular: string | undefined;
  readonly shortcut: string | undefined;
  readonly category: string | undefined;
  /** A name matching the kind, plural, singular or a shortcut; or `EVERYTHING`. */
  readonly anyName: string | Everything | undefined;
  readonly fn: ResourcePredicate | undefined;
}

/** Why a selector could not be parsed. */
export type SelectorErrorReason =
  | "CallableWithOthers"
  | "TooManyArguments"
  | "Ambiguous"
  | "Unspecific"
  | "EmptyName"
  | "InvalidArgument";

/** A selector specification that Kopf would reject. */
export class SelectorError extends Data.TaggedError("SelectorError")<{
  readonly reason: SelectorErrorReason;
  readonly message: string;
}> {}

const fail = (reason: SelectorErrorReason, message: string) =>
  Result.fail(new SelectorError({ reason, message }));

const NAME_FIELDS = ["kind", "plural", "singular", "shortcut", "category", "anyName", "fn"] as const;
const STRING_FIELDS = ["group", "version", "kind", "plural", "singular", "shortcut", "category"] as const;
const REPR_FIELDS = [
  ["group", "group"],
  ["version", "version"],
  ["kind", "kind"],
  ["plural", "plural"],
  ["singular", "singular"],
  ["shortcut", "shortcut"],
  ["category", "category"],
  ["anyName", "any_name"],
  ["fn", "fn"],
] as const;

const repr = (value: unknown): string => {
  if (value === EVERYTHING) return "EVERYTHING";
  if (typeof value === "function") return `<function ${value.name || "anonymous"}>`;
  return `'${String(value).replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
};

/**
 * Parses a selector from positional parts (one to three strings, `EVERYTHING`, or a single
 * predicate) and keyword names, with Kopf's rules: a dotted string is `name.group` or
 * `name.version.group`, two parts are `group/version, name` or `group, name` (`"v1"` meaning the
 * core group), three are `group, version, name`; exactly one name or predicate must result,
 * and names must not be empty strings (group `""` is the core group). Parts derived from
 * positional arguments take precedence over keyword group/version.
 *
 * @example
 * parse(["kopfexamples.kopf.dev"]) // Result.succeed({ group: "kopf.dev", anyName: "kopfexamples", … })
 * parse([], { kind: "Pod" })       // Result.succeed({ kind: "Pod", … })
 * parse([], { kind: "Pod", plural: "pods" }) // Result.fail(SelectorError "Ambiguous resource specification with ['Pod', 'pods']")
 */
export const parse = (
  positional: ReadonlyArray<Positional> = [],
  names: SelectorNames = {},
): Result.Result<Selector, SelectorError> => {
  for (const [i, arg] of positional.entries()) {
    if (!blank(arg) && typeof arg !== "string" && typeof arg !== "function" && arg !== EVERYTHING) {
      return fail(
        "InvalidArgument",
        `Positional selector #${i + 1} must be a string, EVERYTHING or a callable; got ${typeof arg}.`,
      );
    }
  }
  for (const key of STRING_FIELDS) {
    const value = names[key];
    if (!blank(value) && typeof value !== "string") {
      return fail("InvalidArgument", `The selector's ${key} must be a string; got ${typeof value}.`);
    }
  }
  if (!blank(names.anyName) && typeof names.anyName !== "string" && names.anyName !== EVERYTHING) {
    return fail("InvalidArgument", "The selector's anyName must be a string or EVERYTHING.");
  }
  if (!blank(names.fn) && typeof names.fn !== "function") {
    return fail("InvalidArgument", "The selector's fn must be a callable.");
  }
  const interpreted = interpretPositional(positional, EVERYTHING);
  if (Result.isFailure(interpreted)) return fail(interpreted.failure.reason, interpreted.failure.message);
  const derived = interpreted.success as Partial<SelectorNames>;
  const pick = <K extends keyof SelectorNames>(key: K) =>
    (key in derived ? derived[key] : (names[key] ?? undefined)) as Exclude<SelectorNames[K], null>;
  const selector: Selector = Object.freeze({
    group: pick("group"),
    version: pick("version"),
    kind: pick("kind"),
    plural: pick("plural"),
    singular: pick("singular"),
    shortcut: pick("shortcut"),
    category: pick("category"),
    anyName: pick("anyName"),
    fn: pick("fn"),
  });
  const given = NAME_FIELDS.map((k) => selector[k]).filter((v) => v !== undefined);
  if (given.length > 1) {
    return fail("Ambiguous", `Ambiguous resource specification with [${given.map(repr).join(", ")}]`);
  }
  if (given.length < 1) return fail("Unspecific", "Unspecific resource with no names.");
  if (NAME_FIELDS.some((k) => selector[k] === "")) {
    return fail("EmptyName", "Names must not be empty strings; either None or specific strings.");
  }
  return Result.succeed(selector);
};

/**
 * The selector as Kopf prints it: the set fields in declaration order.
 *
 * @example
 * format(kindPod) // "Selector(kind='Pod')"
 */
export const format = (s: Selector): string =>
  `Selector(${REPR_FIELDS.filter(([k]) => s[k] !== undefined)
    .map(([k, label]) => `${label}=${repr(s[k])}`)
    .join(", ")})`;

/** An alias of `format`, as `Selector.toString(s)`. */
export { format as toString };

/**
 * Whether the selector names specific resources (kind, plural, singular, shortcut or a name);
 * categories, `EVERYTHING` and predicates are not specific.
 *
 * @example
 * isSpecific(CRDS) // true
 */
export const isSpecific = (s: Selector): boolean =>
  s.kind !== undefined ||
  s.shortcut !== undefined ||
  s.plural !== undefined ||
  s.singular !== undefined ||
  typeof s.anyName === "string";

const hasName = (r: Resource, name: string): boolean =>
  name === r.kind || name === r.plural || name === r.singular || r.shortcuts.includes(name);

/**
 * Whether the resource holds Kubernetes events (core or `events.k8s.io`, any version). They are
 * excluded from `EVERYTHING` and predicates: handling produces them, so watching them would
 * trigger needless cycles.
 *
 * @example
 * isEvents(Resource.make({ group: "events.k8s.io", version: "v1", plural: "events" })) // true
 */
export const isEvents = (r: Resource): boolean =>
  (r.group === "" || r.group === "events.k8s.io") && hasName(r, "events");

/**
 * Whether the resource matches the selector. A version-less selector matches only preferred
 * versions (predicates see every version).
 *
 * @example
 * check(kindPod, Resource.make({ group: "", version: "v1", plural: "pods", kind: "Pod" })) // true
 */
export const check = (s: Selector, r: Resource): boolean =>
  (s.group === undefined || s.group === r.group) &&
  (s.version === undefined ? r.preferred || s.fn !== undefined : s.version === r.version) &&
  (s.kind === undefined || s.kind === r.kind) &&
  (s.plural === undefined || s.plural === r.plural) &&
  (s.singular === undefined || s.singular === r.singular) &&
  (s.category === undefined || r.categories.includes(s.category)) &&
  (s.shortcut === undefined || r.shortcuts.includes(s.shortcut)) &&
  (s.anyName === undefined || (s.anyName === EVERYTHING ? !isEvents(r) : hasName(r, s.anyName))) &&
  (s.fn === undefined || (s.fn(r) && !isEvents(r)));

/**
 * The resources the selector matches, without duplicates (same group, version, plural). For a
 * specific selector, core-group matches hide matches in other groups (`pods` means core pods,
 * not `metrics.k8s.io` pods), as in kubectl. Callers see 0, 1 or many (ambiguous) results.
 *
 * @example
 * select(podsSelector, discovered).length // 1
 */
export const select = (s: Selector, resources: Iterable<Resource>): ReadonlyArray<Resource> => {
  const seen = new Set<string>();
  const result: Array<Resource> = [];
  for (const r of resources) {
    const key = `${r.group}/${r.version}/${r.plural}`;
    if (!seen.has(key) && check(s, r)) {
      seen.add(key);
      result.push(r);
    }
  }
  if (isSpecific(s)) {
    const core = result.filter((r) => r.group === "");
    if (core.length > 0) return core;
  }
  return result;
};

const known = (group: string, version: string | undefined, anyName: string): Selector =>
  Object.freeze({
    group,
    version,
    kind: undefined,
    plural: undefined,
    singular: undefined,
    shortcut: undefined,
    category: undefined,
    anyName,
    fn: undefined,
  });

/** CustomResourceDefinitions, in any preferred version (watched to rescan resources). */
export const CRDS = known("apiextensions.k8s.io", undefined, "customresourcedefinitions");
/** Core v1 events (posted by the framework). */
export const EVENTS = known("", "v1", "events");
/** `events.k8s.io` events (only for exclusion from `EVERYTHING`). */
export const EVENTS_K8S = known("events.k8s.io", undefined, "events");
/** Core v1 namespaces (observed for namespace patterns). */
export const NAMESPACES = known("", "v1", "namespaces");
/** Cluster-wide peering objects, `kopf.dev` and legacy `zalando.org` groups. */
export const CLUSTER_PEERINGS_K = known("kopf.dev", "v1", "clusterkopfpeerings");
export const CLUSTER_PEERINGS_Z = known("zalando.org", "v1", "clusterkopfpeerings");
/** Namespaced peering objects, `kopf.dev` and legacy `zalando.org` groups. */
export const NAMESPACED_PEERINGS_K = known("kopf.dev", "v1", "kopfpeerings");
export const NAMESPACED_PEERINGS_Z = known("zalando.org", "v1", "kopfpeerings");
/** Admission webhook configurations managed by the operator. */
export const MUTATING_WEBHOOK = known(
  "admissionregistration.k8s.io",
  undefined,
  "mutatingwebhookconfigurations",
);
export const VALIDATING_WEBHOOK = known(
  "admissionregistration.k8s.io",
  undefined,
  "validatingwebhookconfigurations",
);
