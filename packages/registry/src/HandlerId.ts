/**
 * Handler ids: the persistent names under which handler progress is stored in annotations, so
 * they must stay stable across operator restarts and deployments.
 *
 * Kopf takes a function's `__qualname__`; JavaScript only has `fn.name`, so the policy here is:
 * an explicit `id`, else the function's `name` (with the `"bound "` prefixes of bound functions
 * stripped). Anonymous functions (inline arrows, `function () {}`, anonymous default exports)
 * have no stable name and must be given `{ id: "..." }`.
 *
 * A handler with a `field` gets the suffix `/{field.joined.by.dots}`, even with an explicit id
 * (`id: "id", field: "spec.x"` ⇒ `"id/spec.x"`), except index handlers (Kopf HEAD quirk,
 * mirrored: two indexers of one function on different fields collide unless given ids).
 * Sub-handler ids are `{parent}/{child}`.
 */
import { FieldPath } from "@kopf/structs";
import * as Result from "effect/Result";
import { RegistrationError } from "./Errors.ts";

/** The id of a handler, unique within its registry bucket and persisted in annotations. */
export type HandlerId = string;

const BOUND_PREFIX = "bound ";

/** Names JavaScript gives to functions that have none of their own. */
const ANONYMOUS_NAMES: ReadonlySet<string> = new Set(["", "anonymous", "default"]);

/**
 * The id of a function from its name, or a `RegistrationError` when it has no usable name.
 *
 * @example
 * function createFn() {}
 * callableId(createFn) // Result.succeed("createFn")
 * callableId(createFn.bind(null)) // Result.succeed("createFn")
 * callableId(() => {}) // Result.fail(RegistrationError { reason: "AnonymousHandler" })
 */
export const callableId = (fn: Function): Result.Result<HandlerId, RegistrationError> => {
  let name = typeof fn.name === "string" ? fn.name : "";
  while (name.startsWith(BOUND_PREFIX)) name = name.slice(BOUND_PREFIX.length);
  if (ANONYMOUS_NAMES.has(name)) {
    return Result.fail(
      new RegistrationError({
        reason: "AnonymousHandler",
        message:
          "Cannot derive a persistent id of an anonymous function. " +
          'Name the function or pass an explicit id, e.g. { id: "create-things" }.',
      }),
    );
  }
  return Result.succeed(name);
};

/** What a handler id is made of. */
export interface IdParts {
  /** The handler function (its name is used when `id` is absent). */
  readonly fn: Function;
  /** The explicit id, if any. */
  readonly id?: string | undefined;
  /** Appended as `/{field.joined}` when non-empty. */
  readonly field?: FieldPath.FieldPath | undefined;
  /** The parent handler's id, prepended as `{prefix}/` (sub-handlers). */
  readonly prefix?: HandlerId | undefined;
}

/**
 * Builds a handler id: `[prefix/]base[/field]`, where base is the explicit id or the function's
 * name.
 *
 * @example
 * make({ fn: createFn, id: "id", field: ["field", "subfield"] }) // Result.succeed("id/field.subfield")
 * make({ fn: itemFn, prefix: "create_fn" }) // Result.succeed("create_fn/itemFn")
 */
export const make = (parts: IdParts): Result.Result<HandlerId, RegistrationError> => {
  if (parts.id !== undefined && (typeof parts.id !== "string" || parts.id === "")) {
    return Result.fail(
      new RegistrationError({
        reason: "InvalidOption",
        message: `The handler id must be a non-empty string; got ${JSON.stringify(parts.id)}.`,
      }),
    );
  }
  const base = parts.id !== undefined ? Result.succeed(parts.id) : callableId(parts.fn);
  return Result.map(base, (id) => {
    const suffix = parts.field === undefined ? "" : FieldPath.format(parts.field);
    const withField = suffix === "" ? id : `${id}/${suffix}`;
    return parts.prefix === undefined ? withField : `${parts.prefix}/${withField}`;
  });
};
