/**
 * The errors handlers raise to steer their own retrying (`PermanentError`, `TemporaryError` and
 * the final `HandlerTimeoutError`/`HandlerRetriesError`, `AdmissionError` for webhooks), the
 * `ErrorsMode` that classifies any other failure, and `RegistrationError` for mistakes found
 * while registering handlers.
 *
 * The handler errors are real `Error` subclasses, so plain and async handlers can
 * `throw new TemporaryError("not yet", { delay: 10 })`; they are also Effect's yieldable errors
 * with a `_tag`, so Effect handlers can `yield* new PermanentError("bad")` or
 * `Effect.fail(new PermanentError("bad"))`. `instanceof` follows Kopf's hierarchy:
 * `HandlerTimeoutError`, `HandlerRetriesError` and `AdmissionError` are `PermanentError`s.
 */
import * as Data from "effect/Data";

/** How a handler failure that is none of the errors below is treated. */
export type ErrorsMode = "ignored" | "temporary" | "permanent";

/**
 * The three errors modes by name, as in Kopf's `ErrorsMode` enum.
 *
 * @example
 * on.create("kopfexamples", { errors: ErrorsMode.PERMANENT }, createFn)
 */
export const ErrorsMode = {
  IGNORED: "ignored",
  TEMPORARY: "temporary",
  PERMANENT: "permanent",
} as const satisfies Record<string, ErrorsMode>;

/** The tags of `PermanentError` and of its subclasses. */
export type PermanentErrorTag =
  | "PermanentError"
  | "HandlerTimeoutError"
  | "HandlerRetriesError"
  | "AdmissionError";

/**
 * A failure that must not be retried: the handler is marked as failed for good.
 *
 * @example
 * const createFn = ({ spec }: ChangingContext) => {
 *   if (!spec.size) throw new PermanentError("spec.size is required")
 * }
 */
export class PermanentError extends Data.Error<{ readonly message: string }> {
  readonly _tag: PermanentErrorTag = "PermanentError";
  override readonly name: string = "PermanentError";
  constructor(message?: string) {
    super({ message: message ?? "" });
  }
}

/** The delay (seconds) of a `TemporaryError` created without one; fixed in Kopf as well. */
export const DEFAULT_TEMPORARY_DELAY = 60;

/**
 * A failure worth retrying after `delay` seconds (default 60; `null` retries immediately).
 * Subject to the handler's `retries` and `timeout` limits.
 *
 * @example
 * throw new TemporaryError("the database is not ready", { delay: 10 })
 * // or in an Effect handler:
 * // return yield* new TemporaryError("not yet", { delay: 10 })
 */
export class TemporaryError extends Data.Error<{ readonly message: string; readonly delay: number | null }> {
  readonly _tag = "TemporaryError" as const;
  override readonly name: string = "TemporaryError";
  constructor(message?: string, options?: { readonly delay?: number | null }) {
    super({
      message: message ?? "",
      delay: options?.delay === undefined ? DEFAULT_TEMPORARY_DELAY : options.delay,
    });
  }
}

/**
 * A handler ran longer than its `timeout` (raised by the framework, final).
 *
 * @example
 * new HandlerTimeoutError("Handler 'create_fn' has timed out after 60.0s.") instanceof PermanentError // true
 */
export class HandlerTimeoutError extends PermanentError {
  override readonly _tag = "HandlerTimeoutError" as const;
  override readonly name: string = "HandlerTimeoutError";
}

/**
 * A handler exhausted its `retries` (raised by the framework, final).
 *
 * @example
 * new HandlerRetriesError("Handler 'create_fn' has exceeded 3 retries.") instanceof PermanentError // true
 */
export class HandlerRetriesError extends PermanentError {
  override readonly _tag = "HandlerRetriesError" as const;
  override readonly name: string = "HandlerRetriesError";
}

/** The HTTP code of an `AdmissionError` created without one. */
export const DEFAULT_ADMISSION_CODE = 500;

/**
 * Rejects an admission request from a validating or mutating webhook handler; `message` and
 * `code` (default 500) go into the admission response.
 *
 * @example
 * const validateFn = ({ spec }: WebhookContext) => {
 *   if (spec.size === "huge") throw new AdmissionError("Too big.", { code: 400 })
 * }
 */
export class AdmissionError extends PermanentError {
  override readonly _tag = "AdmissionError" as const;
  override readonly name: string = "AdmissionError";
  readonly code: number;
  constructor(message?: string, options?: { readonly code?: number }) {
    super(message);
    this.code = options?.code ?? DEFAULT_ADMISSION_CODE;
  }
}

/** What is wrong with a registration. */
export type RegistrationErrorReason =
  | "FilterWithoutField"
  | "ValueWithOldNew"
  | "NullMetaFilter"
  | "EmptyOperations"
  | "MissingField"
  | "InvalidOption"
  | "AnonymousHandler"
  | "InvalidResource"
  | "UnresolvedModel"
  | "SubhandlerOutsideChanging"
  | "OldNewOutsideUpdate";

/**
 * A mistake in a handler registration (an `on.*` call), found at registration time. The
 * registration calls throw it, as Kopf's decorators raise at import time: this is the only place
 * where this library throws.
 *
 * @example
 * try {
 *   registry.on.create("kopfexamples", { value: "x" }, createFn)
 * } catch (e) {
 *   if (e instanceof RegistrationError) console.error(e.reason, e.message) // "FilterWithoutField"
 * }
 */
export class RegistrationError extends Data.TaggedError("RegistrationError")<{
  readonly reason: RegistrationErrorReason;
  readonly message: string;
}> {}
