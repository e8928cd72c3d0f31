/**
 * Bounds on what untrusted admission input can make the operator write: any text taken from a
 * request (names, values in error messages, handler messages built from the request) is cut to
 * a stated length with a marker giving the original length, so one hostile request costs at most
 * a few kilobytes of log, however large its fields are. Pure.
 */
import type { Logger } from "@kopf/registry";

/** The longest object name or namespace kept in log lines (Kubernetes names are ≤ 253). */
export const MAX_NAME = 256;

/** The longest message of a log line written while serving a request. */
export const MAX_MESSAGE = 4096;

/** The longest value quoted in an error message about a request. */
export const MAX_QUOTE = 64;

/**
 * The text cut to `max` characters, with a marker naming the original length when cut (never
 * splitting a surrogate pair).
 *
 * @example
 * Bounded.text("abcdef", 3) // "abc…[truncated, 6 characters]"
 * Bounded.text("abc", 3) // "abc"
 */
export const text = (value: string, max: number): string =>
  value.length <= max ? value : `${cut(value, max)}${marker(value.length)}`;

const cut = (value: string, max: number): string => {
  const last = value.charCodeAt(max - 1);
  return value.slice(0, max > 0 && last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
};

const marker = (length: number): string => `…[truncated, ${length} characters]`;

/**
 * A short description of any value for an error message, without serialising more of it than
 * it shows: strings quoted (cut to `max`), numbers, booleans and `null` as JSON, arrays and
 * objects by their size.
 *
 * @example
 * Bounded.preview("Pod") // '"Pod"'
 * Bounded.preview(123) // "123"
 * Bounded.preview([1, 2]) // "an array of 2 items"
 * Bounded.preview({ a: 1 }) // "an object with 1 key"
 */
export const preview = (value: unknown, max = MAX_QUOTE): string => {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") {
    return value.length <= max
      ? JSON.stringify(value)
      : `${JSON.stringify(cut(value, max))}${marker(value.length)}`;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `an array of ${plural(value.length, "item")}`;
  if (typeof value === "object") return `an object with ${plural(Object.keys(value).length, "key")}`;
  return `a ${typeof value}`;
};

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

/**
 * An error whose message and stack are bounded, for logging a failure caused by a request;
 * strings are cut, other values are given back unchanged. (A stack holds the message plus a
 * bounded number of frames, so only the message needs judging.)
 *
 * @example
 * Bounded.error(new Error("x".repeat(10_000))).message.length // < 5000
 */
export const error = (value: unknown, max = MAX_MESSAGE): unknown => {
  if (!(value instanceof Error)) return typeof value === "string" ? text(value, max) : value;
  if (value.message.length <= max) return value;
  const bounded = new Error(text(value.message, max));
  bounded.name = value.name;
  bounded.stack = text(value.stack ?? "", 4 * max);
  return bounded;
};

/**
 * A handler logger writing through `logger` with every message cut to `max` characters and
 * string arguments and errors bounded alike.
 *
 * @example
 * ```ts
 * const logger = Bounded.logger(Logging.handlerLogger(context, extra))
 * logger.info(`Checked ${name}`) // at most MAX_MESSAGE characters of it are written
 * ```
 */
export const logger = (target: Logger, max = MAX_MESSAGE): Logger => {
  const args = (values: ReadonlyArray<unknown>) => values.map((value) => error(value, max));
  return {
    debug: (message, ...rest) => target.debug(text(message, max), ...args(rest)),
    info: (message, ...rest) => target.info(text(message, max), ...args(rest)),
    warning: (message, ...rest) => target.warning(text(message, max), ...args(rest)),
    error: (message, ...rest) => target.error(text(message, max), ...args(rest)),
    exception: (message, failure) =>
      target.exception(text(message, max), failure === undefined ? undefined : error(failure, max)),
  };
};
