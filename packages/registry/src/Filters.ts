/**
 * Object filters of handlers: the `PRESENT`/`ABSENT` markers, label/annotation/value/old/new
 * filter types, the `not_`/`all_`/`any_`/`none_` combinators for callbacks, and the pure checks
 * of one filter against one object (docs/behaviour/registration.md#filters semantics). `Matching` chains these checks in
 * Kopf's order for a handler and a cause.
 *
 * Callbacks are user code: whatever they throw propagates to the caller of these checks (the
 * runtime invokes matching inside `Effect.try`).
 */
import { Json } from "@kopf/structs";

/**
 * The marker for "the key or field is present" (any value, including `""` and `null`).
 *
 * @example
 * on.create("kopfexamples", { labels: { app: PRESENT } }, createFn)
 */
export const PRESENT: unique symbol = Symbol.for("@kopf/registry/Filters/PRESENT");
/** The type of the `PRESENT` marker. */
export type PRESENT = typeof PRESENT;

/**
 * The marker for "the key or field is absent".
 *
 * @example
 * on.create("kopfexamples", { annotations: { "example.com/skip": ABSENT } }, createFn)
 */
export const ABSENT: unique symbol = Symbol.for("@kopf/registry/Filters/ABSENT");
/** The type of the `ABSENT` marker. */
export type ABSENT = typeof ABSENT;

/** Whether `x` is one of the two markers. */
export const isMarker = (x: unknown): x is PRESENT | ABSENT => x === PRESENT || x === ABSENT;

/** A callback checking one label or annotation value (`undefined` when the key is absent). */
export type MetaFilterFn<C> = (value: string | undefined, ctx: C) => boolean;

/** A callback checking a field value (`undefined` when the field is absent). */
export type ValueFilterFn<C> = (value: unknown, ctx: C) => boolean;

/** A callback checking the whole object, given the handler's filter context. */
export type WhenFilterFn<C> = (ctx: C) => boolean;

/**
 * A label or annotation filter: per key, an exact value, `PRESENT`, `ABSENT` or a callback.
 *
 * @example
 * const labels: MetaFilter<unknown> = { app: "web", tier: PRESENT, legacy: ABSENT }
 */
export type MetaFilter<C> = Readonly<Record<string, string | PRESENT | ABSENT | MetaFilterFn<C>>>;

/**
 * A field value filter (`value`, `old`, `new`): an exact JSON value (compared deeply),
 * `PRESENT`, `ABSENT` or a callback. `null` and `undefined` mean "no filter", as in Kopf.
 */
export type ValueFilter<C> = Exclude<Json.JsonValue, null> | PRESENT | ABSENT | ValueFilterFn<C>;

/**
 * Negates a callback (usable for `when` and for value callbacks).
 *
 * @example
 * on.update("kopfexamples", { when: not_(isPaused) }, updateFn)
 */
export const not_ =
  <A extends ReadonlyArray<unknown>>(fn: (...args: A) => boolean): ((...args: A) => boolean) =>
  (...args) =>
    !fn(...args);

/**
 * True when every callback is true (also for no callbacks); stops at the first false one.
 *
 * @example
 * on.update("kopfexamples", { when: all_([isReady, isLabelled]) }, updateFn)
 */
export const all_ = <A extends ReadonlyArray<unknown>>(
  fns: Iterable<(...args: A) => boolean>,
): ((...args: A) => boolean) => {
  const list = [...fns];
  return (...args) => list.every((fn) => fn(...args));
};

/**
 * True when at least one callback is true (false for no callbacks); stops at the first true one.
 *
 * @example
 * on.update("kopfexamples", { when: any_([isReady, isForced]) }, updateFn)
 */
export const any_ = <A extends ReadonlyArray<unknown>>(
  fns: Iterable<(...args: A) => boolean>,
): ((...args: A) => boolean) => {
  const list = [...fns];
  return (...args) => list.some((fn) => fn(...args));
};

/**
 * True when no callback is true (also for no callbacks); stops at the first true one.
 *
 * @example
 * on.update("kopfexamples", { when: none_([isPaused, isBroken]) }, updateFn)
 */
export const none_ = <A extends ReadonlyArray<unknown>>(
  fns: Iterable<(...args: A) => boolean>,
): ((...args: A) => boolean) => {
  const list = [...fns];
  return (...args) => !list.some((fn) => fn(...args));
};

/**
 * Whether labels or annotations (`content`) pass a meta filter. An empty or absent filter
 * passes. Per key: `ABSENT` ⇒ key absent; `PRESENT` ⇒ key present (`""` counts); callback ⇒
 * `fn(value or undefined, ctx)`; exact value ⇒ key present with that value. `ctx` is computed
 * only when a callback needs it.
 *
 * @example
 * matchesMeta({ app: "web" }, { app: "web", extra: "x" }, () => ctx) // true
 * matchesMeta({ app: ABSENT }, { app: "" }, () => ctx) // false
 */
export const matchesMeta = <C>(
  filter: MetaFilter<C> | undefined,
  content: Readonly<Record<string, string>>,
  ctx: () => C,
): boolean => {
  if (filter === undefined) return true;
  for (const key of Object.keys(filter)) {
    const spec = filter[key];
    const present = Object.hasOwn(content, key);
    const actual = present ? content[key] : undefined;
    if (spec === ABSENT) {
      if (present) return false;
    } else if (spec === PRESENT) {
      if (!present) return false;
    } else if (typeof spec === "function") {
      if (!spec(actual, ctx())) return false;
    } else if (!present || actual !== spec) {
      return false;
    }
  }
  return true;
};

/** Whether a filter is "not set" (`undefined` or, from untyped callers, `null`). */
export const isUnset = (filter: unknown): filter is undefined | null =>
  filter === undefined || filter === null;

/**
 * Whether one value passes an old/new filter: unset ⇒ pass; `ABSENT` ⇒ absent; `PRESENT` ⇒
 * present; callback ⇒ `fn(value, ctx)`; literal ⇒ deeply equal. `undefined` means absent.
 *
 * @example
 * matchesValue(PRESENT, null, () => ctx) // true: the field holds null
 * matchesValue("x", undefined, () => ctx) // false
 */
export const matchesValue = <C>(
  filter: ValueFilter<C> | undefined,
  value: unknown,
  ctx: () => C,
): boolean => {
  if (isUnset(filter)) return true;
  if (filter === ABSENT) return value === undefined;
  if (filter === PRESENT) return value !== undefined;
  if (typeof filter === "function") return filter(value, ctx());
  return Json.deepEqual(filter, value);
};

/**
 * Whether a field passes a `value` filter given its candidate values (`undefined` = absent).
 * Changing causes pass `[new, old]` (new first, so an old-value callback is not called when the
 * new value already passes); all other causes pass `[current]`. Unset ⇒ present in some value;
 * `PRESENT` ⇒ present in some; `ABSENT` ⇒ absent in some; callback ⇒ true for some; literal ⇒
 * equals some.
 *
 * @example
 * matchesFieldValue(undefined, [undefined, 1], () => ctx) // true: present in the old essence
 * matchesFieldValue(ABSENT, [1, undefined], () => ctx) // true: absent in the old essence
 */
export const matchesFieldValue = <C>(
  filter: ValueFilter<C> | undefined,
  values: ReadonlyArray<unknown>,
  ctx: () => C,
): boolean => {
  if (isUnset(filter) || filter === PRESENT) return values.some((v) => v !== undefined);
  if (filter === ABSENT) return values.some((v) => v === undefined);
  if (typeof filter === "function") return values.some((v) => filter(v, ctx()));
  return values.some((v) => Json.deepEqual(filter, v));
};

/**
 * Whether a field change passes: when `needsChange`, the old and new values must differ
 * (absent vs present counts as a change); then the `old` and `new` filters must pass.
 *
 * @example
 * matchesFieldChange({ needsChange: true, old: undefined, new: PRESENT }, undefined, 1, () => ctx) // true
 * matchesFieldChange({ needsChange: true, old: undefined, new: undefined }, 1, 1, () => ctx) // false
 */
export const matchesFieldChange = <C>(
  filters: {
    readonly needsChange: boolean;
    readonly old: ValueFilter<C> | undefined;
    readonly new: ValueFilter<C> | undefined;
  },
  oldValue: unknown,
  newValue: unknown,
  ctx: () => C,
): boolean =>
  (!filters.needsChange || !Json.deepEqual(oldValue, newValue)) &&
  matchesValue(filters.old, oldValue, ctx) &&
  matchesValue(filters.new, newValue, ctx);
