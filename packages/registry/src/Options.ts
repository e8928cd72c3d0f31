/**
 * The options of every registration call (docs/behaviour/registration.md#options, camelCased) and their validation at
 * registration time (docs/behaviour/registration.md#validation-at-registration with Kopf's messages, plus checks of numbers and modes that Kopf
 * leaves to fail later). Every option is optional; `undefined` means Kopf's `None`.
 */
import { FieldPath } from "@kopf/structs";
import * as Result from "effect/Result";
import { type ErrorsMode, RegistrationError } from "./Errors.ts";
import type { MetaFilter, ValueFilter, WhenFilterFn } from "./Filters.ts";
import { isMarker, isUnset } from "./Filters.ts";
import type { DelayContext, Operation } from "./HandlerContext.ts";

/** Options every handler accepts. */
export interface IdOptions {
  /** The persistent handler id; required for anonymous functions. */
  readonly id?: string;
  /** Passed to the handler as `param`. */
  readonly param?: unknown;
}

/** Retry behaviour (not for on.event and webhooks). */
export interface BehaviourOptions extends IdOptions {
  readonly errors?: ErrorsMode;
  /** Seconds since the first attempt after which the handler fails for good. */
  readonly timeout?: number;
  /** Attempts after which the handler fails for good. */
  readonly retries?: number;
  /** Seconds between retries after arbitrary errors. */
  readonly backoff?: number;
}

/** Object filters of resource handlers; `C` is the context their callbacks receive. */
export interface FilterOptions<C> {
  readonly labels?: MetaFilter<C>;
  readonly annotations?: MetaFilter<C>;
  /** Checked last, after all other filters pass. */
  readonly when?: WhenFilterFn<C>;
  /** A dotted path (`"spec.size"`) or a list of keys. */
  readonly field?: FieldPath.FieldSpec;
  /** Requires `field`. Without it, the field only has to be present. */
  readonly value?: ValueFilter<C>;
}

/** Old/new value filters of a field (on.update, on.field, sub-handlers of those). */
export interface ChangeFilterOptions<C> {
  readonly old?: ValueFilter<C>;
  readonly new?: ValueFilter<C>;
}

/** `on.startup`, `on.cleanup`, `on.login`, `on.probe`. */
export interface ActivityOptions extends BehaviourOptions {}

/** `on.create`. */
export interface CreateOptions<C> extends BehaviourOptions, FilterOptions<C> {}

/** `on.resume`. */
export interface ResumeOptions<C> extends BehaviourOptions, FilterOptions<C> {
  /** Also resume objects that are being deleted. */
  readonly deleted?: boolean;
}

/** `on.update`. */
export interface UpdateOptions<C> extends BehaviourOptions, FilterOptions<C>, ChangeFilterOptions<C> {}

/** `on.delete`. */
export interface DeleteOptions<C> extends BehaviourOptions, FilterOptions<C> {
  /** Do not block the deletion with a finalizer for this handler. */
  readonly optional?: boolean;
}

/** `on.field` (`field` is mandatory). */
export interface FieldOptions<C> extends BehaviourOptions, FilterOptions<C>, ChangeFilterOptions<C> {
  readonly field: FieldPath.FieldSpec;
}

/** `on.event` (no retry behaviour: events are not retried). */
export interface EventOptions<C> extends IdOptions, FilterOptions<C> {}

/** `index` / `on.index`. */
export interface IndexOptions<C> extends BehaviourOptions, FilterOptions<C> {}

/** `daemon` / `on.daemon`. */
export interface DaemonOptions<C, B = unknown> extends BehaviourOptions, FilterOptions<C> {
  readonly initialDelay?: number | ((ctx: DelayContext<B>) => number);
  readonly cancellationBackoff?: number;
  readonly cancellationTimeout?: number;
  readonly cancellationPolling?: number;
}

/** `timer` / `on.timer`. */
export interface TimerOptions<C, B = unknown> extends BehaviourOptions, FilterOptions<C> {
  readonly interval?: number;
  readonly initialDelay?: number | ((ctx: DelayContext<B>) => number);
  readonly sharp?: boolean;
  readonly idle?: number;
}

/** `on.validate`, `on.mutate` (no retry behaviour: admission is answered once). */
export interface WebhookOptions<C> extends IdOptions, FilterOptions<C> {
  /** @deprecated Use `operations`; merged into them. */
  readonly operation?: Operation;
  readonly operations?: Iterable<Operation>;
  /** A subresource (`"status"`, `"scale"`), or `"*"` for any. */
  readonly subresource?: string;
  /** Keep the webhook configured even when the operator is not running. */
  readonly persistent?: boolean;
  readonly sideEffects?: boolean;
  readonly ignoreFailures?: boolean;
}

/** `subhandler` (`old`/`new` only under on.update and on.field). */
export interface SubhandlerOptions<C> extends BehaviourOptions, FilterOptions<C>, ChangeFilterOptions<C> {}

/** `register` (the function-call form of `subhandler`). */
export interface RegisterOptions<C>
  extends BehaviourOptions,
    Pick<FilterOptions<C>, "labels" | "annotations" | "when"> {}

const fail = (reason: RegistrationError["reason"], message: string) =>
  Result.fail(new RegistrationError({ reason, message }));

const ERRORS_MODES: ReadonlySet<unknown> = new Set(["ignored", "temporary", "permanent"]);

const NUMBER_OPTIONS = [
  "timeout",
  "backoff",
  "interval",
  "idle",
  "cancellationBackoff",
  "cancellationTimeout",
  "cancellationPolling",
] as const;

const BOOLEAN_OPTIONS = [
  "deleted",
  "optional",
  "sharp",
  "persistent",
  "sideEffects",
  "ignoreFailures",
] as const;

/**
 * Checks the numbers, booleans, callbacks and the errors mode of options (Kopf leaves these to
 * fail later, at run time).
 */
export const checkBehaviour = (
  options: Readonly<Record<string, unknown>>,
): Result.Result<void, RegistrationError> => {
  if (options.errors !== undefined && !ERRORS_MODES.has(options.errors)) {
    return fail(
      "InvalidOption",
      `errors must be "ignored", "temporary" or "permanent"; got ${JSON.stringify(options.errors)}.`,
    );
  }
  for (const key of NUMBER_OPTIONS) {
    const value = options[key];
    if (value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value >= 0)) {
      return fail("InvalidOption", `${key} must be a non-negative number of seconds; got ${String(value)}.`);
    }
  }
  const retries = options.retries;
  if (retries !== undefined && !(typeof retries === "number" && Number.isInteger(retries) && retries >= 0)) {
    return fail("InvalidOption", `retries must be a non-negative integer; got ${String(retries)}.`);
  }
  for (const key of BOOLEAN_OPTIONS) {
    const value = options[key];
    if (value !== undefined && typeof value !== "boolean") {
      return fail("InvalidOption", `${key} must be a boolean; got ${String(value)}.`);
    }
  }
  if (options.when !== undefined && typeof options.when !== "function") {
    return fail("InvalidOption", `when must be a function; got ${String(options.when)}.`);
  }
  if (options.subresource !== undefined && typeof options.subresource !== "string") {
    return fail("InvalidOption", `subresource must be a string; got ${String(options.subresource)}.`);
  }
  const delay = options.initialDelay;
  if (
    delay !== undefined &&
    typeof delay !== "function" &&
    !(typeof delay === "number" && Number.isFinite(delay) && delay >= 0)
  ) {
    return fail(
      "InvalidOption",
      `initialDelay must be non-negative seconds or a function; got ${String(delay)}.`,
    );
  }
  return Result.void;
};

/** Kopf's `_verify_filters`: label/annotation filter values must not be `null`/`undefined`. */
export const checkMetaFilters = (options: FilterOptions<unknown>): Result.Result<void, RegistrationError> => {
  for (const [what, filter] of [
    ["label", options.labels],
    ["annotation", options.annotations],
  ] as const) {
    if (filter === undefined) continue;
    if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
      return fail(
        "InvalidOption",
        `The ${what} filter must be an object of keys to values; got ${String(filter)}.`,
      );
    }
    for (const key of Object.keys(filter)) {
      const spec = filter[key];
      if (isUnset(spec)) {
        return fail(
          "NullMetaFilter",
          `\`None\` for ${what} filters is not supported; use kopf.PRESENT or kopf.ABSENT (key ${JSON.stringify(key)}).`,
        );
      }
      if (typeof spec !== "string" && typeof spec !== "function" && !isMarker(spec)) {
        return fail(
          "InvalidOption",
          `The ${what} filter of ${JSON.stringify(key)} must be a string, PRESENT, ABSENT or a function; got ${String(spec)}.`,
        );
      }
    }
  }
  return Result.void;
};

/** Kopf's `_warn_conflicting_values`: value/old/new need a field; value excludes old/new. */
export const checkValueFilters = (
  options: FilterOptions<unknown> & ChangeFilterOptions<unknown>,
): Result.Result<void, RegistrationError> => {
  const hasValue = !isUnset(options.value);
  const hasOldNew = !isUnset(options.old) || !isUnset(options.new);
  if (options.field === undefined && (hasValue || hasOldNew)) {
    return fail("FilterWithoutField", "Value/old/new filters are specified without a mandatory field.");
  }
  if (hasValue && hasOldNew) {
    return fail("ValueWithOldNew", "Either value= or old=/new= can be defined, not both.");
  }
  return Result.void;
};

/**
 * Parses the `field` option: `undefined` (and an empty spec) ⇒ no field, as in Kopf.
 *
 * @example
 * parseField("spec.size") // Result.succeed(["spec", "size"])
 */
export const parseField = (
  field: FieldPath.FieldSpec | undefined,
): Result.Result<FieldPath.FieldPath | undefined, RegistrationError> => {
  if (field === undefined) return Result.succeed(undefined);
  const isList = Array.isArray(field) && field.every((key) => typeof key === "string");
  if (typeof field !== "string" && !isList) {
    return fail("InvalidOption", `field must be a dotted string or a list of strings; got ${String(field)}.`);
  }
  const path = FieldPath.parse(field);
  return Result.succeed(path.length === 0 ? undefined : path);
};

/**
 * Kopf's `_verify_operations`: merges the deprecated `operation` into `operations`; an empty
 * collection is an error.
 *
 * @example
 * parseOperations({ operations: ["CREATE", "UPDATE"] }) // Result.succeed(Set { "CREATE", "UPDATE" })
 */
export const parseOperations = (
  options: Pick<WebhookOptions<unknown>, "operation" | "operations">,
): Result.Result<ReadonlySet<Operation> | undefined, RegistrationError> => {
  if (options.operation === undefined && options.operations === undefined) return Result.succeed(undefined);
  const given: unknown = options.operations;
  if (given !== undefined && (typeof given === "string" || !isIterable(given))) {
    return fail("InvalidOption", `operations must be a collection of operations; got ${String(given)}.`);
  }
  const operations = new Set<unknown>(options.operations ?? []);
  if (options.operation !== undefined) operations.add(options.operation);
  for (const operation of operations) {
    if (!OPERATIONS.has(operation)) {
      return fail(
        "InvalidOption",
        `Unknown operation ${JSON.stringify(operation)}; expected CREATE, UPDATE, DELETE or CONNECT.`,
      );
    }
  }
  if (operations.size === 0) {
    return fail("EmptyOperations", "Operations should be either None or non-empty. Got empty operations.");
  }
  return Result.succeed(operations as ReadonlySet<Operation>);
};

const OPERATIONS: ReadonlySet<unknown> = new Set<Operation>(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

const isIterable = (x: unknown): x is Iterable<unknown> =>
  typeof x === "object" &&
  x !== null &&
  typeof (x as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";
