/**
 * Handlers of typed resources (`kopf.resource(...)`): before the handler runs, the object's body
 * is decoded with the version's Schemas, so `body`, `spec` and `status` are the decoded values
 * (defaults in, undeclared fields out). A body that does not decode — an object stored before a
 * schema change, say — never reaches the handler: the object gets a warning naming each bad field
 * (logged, and reported to the registry's `onUndecodable` — the facade posts it as a Warning
 * event) and the handler fails permanently with the same text. Registration with
 * `{ decode: false }` skips the decoding.
 */
import { CustomResource } from "@kopf/resources";
import * as Result from "effect/Result";
import { PermanentError } from "./Errors.ts";
import type { Logger } from "./HandlerContext.ts";

/** A served version of a typed resource, as registration calls receive it. */
export type Served = CustomResource.Served<unknown>;

/**
 * Whether a resource notation is a typed resource (or one of its versions).
 *
 * @example
 * isServed(KopfExample) // true
 * isServed("kopfexamples.kopf.dev") // false
 */
export const isServed = (resource: unknown): resource is Served =>
  typeof resource === "object" && resource !== null && CustomResource.SERVED in resource;

/** The resource names of a typed resource's version, for its selector. */
export const namesOf = (served: Served) => {
  const { group, version, plural } = served[CustomResource.SERVED];
  return { group, version, plural };
};

/**
 * The message of a body that does not decode: the resource version and every bad field.
 *
 * @example
 * describeIssues("kopf.dev/v1", [{ path: "spec.size", message: "Expected number, got \"x\"" }])
 * // 'The object does not decode as kopf.dev/v1: spec.size: Expected number, got "x".'
 */
export const describeIssues = (
  apiVersion: string,
  issues: ReadonlyArray<CustomResource.FieldIssue>,
): string =>
  `The object does not decode as ${apiVersion}: ${issues.map((i) => `${i.path || "(body)"}: ${i.message}`).join("; ")}.`;

interface DecodableContext {
  readonly body: unknown;
  readonly logger: Logger;
}

/**
 * Wraps a handler of a typed resource: decodes the body first; on failure, warns on the object
 * (a log line, and `onUndecodable`) and fails permanently. With `live` (daemons, whose body follows the object), the body is only
 * checked at the start and the live views are passed on unchanged.
 *
 * @example
 * const fn = decoding(KopfExample, ({ spec }) => spec.size, false)
 * fn(context) // the handler sees the decoded spec
 */
export const decoding = (
  served: Served,
  fn: Function,
  live: boolean,
  onUndecodable?: (body: unknown, message: string) => void,
): Function => {
  const { group, version, decode } = served[CustomResource.SERVED];
  const wrapper = function (this: unknown, context: DecodableContext) {
    const decoded = decode(context.body);
    if (Result.isFailure(decoded)) {
      const message = describeIssues(`${group}/${version}`, decoded.failure);
      context.logger.warning(message);
      onUndecodable?.(context.body, message);
      throw new PermanentError(message);
    }
    if (live) return fn.call(this, context);
    const body = decoded.success as { readonly spec?: unknown; readonly status?: unknown };
    return fn.call(this, { ...context, body, spec: body.spec, status: body.status ?? {} });
  };
  Object.defineProperty(wrapper, "name", { value: fn.name });
  return wrapper;
};
