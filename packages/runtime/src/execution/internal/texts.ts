/**
 * How Kopf renders values in its handler log lines and progress messages: an error as
 * Python's `str(e) or repr(e)`, a duration as Python's `timedelta` text, seconds as Python
 * prints a number.
 */

/** The error's own message (Python's `str(e)`): what the progress record keeps. */
export const messageOf = (error: unknown): string => {
  if (error instanceof Error) return error.message;
  if (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { message?: unknown }).message === "string"
  ) {
    return (error as { message: string }).message;
  }
  return String(error);
};

/** The class-like name of a failure, for `repr`-style fallbacks (`TemporaryError()`). */
const nameOf = (error: unknown): string => {
  if (error instanceof Error) return error.name;
  if (typeof error === "object" && error !== null) {
    const tag = (error as { _tag?: unknown })._tag;
    if (typeof tag === "string") return tag;
    return error.constructor?.name ?? "Object";
  }
  return typeof error;
};

/** Python's `str(e) or repr(e)`: the message, or the error's name when the message is empty. */
export const describeError = (error: unknown): string => messageOf(error) || `${nameOf(error)}()`;

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * A duration in microseconds as Python prints a `timedelta`: `0:00:05`, `0:01:00.250000`,
 * `1 day, 2:03:04`, `-1 day, 23:59:59`.
 */
export const formatTimedelta = (micros: number): string => {
  const total = Math.round(micros);
  const perDay = 86_400_000_000;
  const days = Math.floor(total / perDay);
  const rest = total - days * perDay;
  const fraction = rest % 1_000_000;
  const seconds = Math.floor(rest / 1_000_000);
  const hh = Math.floor(seconds / 3600);
  const mm = Math.floor((seconds % 3600) / 60);
  const ss = seconds % 60;
  const clock = `${hh}:${pad2(mm)}:${pad2(ss)}${fraction === 0 ? "" : `.${String(fraction).padStart(6, "0")}`}`;
  if (days === 0) return clock;
  return `${days} day${Math.abs(days) === 1 ? "" : "s"}, ${clock}`;
};

/** Seconds as Python prints the number the user gave (`60`, `1.5`). */
export const formatSeconds = (seconds: number): string => String(seconds);
