/**
 * Kopf's interpretation of the positional arguments of a resource selector (docs/behaviour/registration.md#resource-selectors): which of
 * them are the group, the version, the name or the predicate.
 */
import * as Result from "effect/Result";

/** What the positional arguments say, before the names are checked for ambiguity. */
export interface Interpreted {
  readonly group?: string | undefined;
  readonly version?: string | undefined;
  readonly anyName?: unknown;
  readonly fn?: unknown;
}

/** A rejection of the positional arguments. */
export interface Rejection {
  readonly reason: "CallableWithOthers" | "TooManyArguments";
  readonly message: string;
}

/** Whether a positional or keyword value is absent (Python's `None`). */
export const blank = (x: unknown): x is null | undefined => x === null || x === undefined;

// Conventional versions in dotted names ("kex.v1.kopf.dev", "kex.v2beta1"); other middles are groups.
const GROUP_VERSION = /^[^.]*\.v\d+(?:(?:alpha|beta)\d+)?(?:\..*)?$/;

const text = (x: unknown): string | undefined => (blank(x) ? undefined : (x as string));

/**
 * Interprets up to three positional arguments; the first matching rule wins:
 * a callable alone; nothing; `EVERYTHING` or one name (`name`, `name.group`,
 * `name.vN.group`); two (`group/version, name`, `v1, name`, `group, name`); three
 * (`group, version, name`).
 */
export const interpretPositional = (
  args: ReadonlyArray<unknown>,
  everything: symbol,
): Result.Result<Interpreted, Rejection> => {
  const [arg1, arg2, arg3, ...rest] = args;
  if (typeof arg1 === "function") {
    if (!blank(arg2) || !blank(arg3) || rest.some((x) => !blank(x))) {
      return Result.fail({
        reason: "CallableWithOthers",
        message: "The callable filter cannot have any other selectors.",
      });
    }
    return Result.succeed({ fn: arg1 });
  }
  if (rest.some((x) => !blank(x))) {
    return Result.fail({
      reason: "TooManyArguments",
      message: "Too many positional arguments. Max 3 positional args are accepted.",
    });
  }
  if (blank(arg1) && blank(arg2) && blank(arg3)) return Result.succeed({});
  if (blank(arg2) && blank(arg3)) {
    if (arg1 === everything) return Result.succeed({ anyName: arg1 });
    if (typeof arg1 === "string" && GROUP_VERSION.test(arg1)) {
      const parts = arg1.split(".");
      const named = { version: parts[1], anyName: parts[0] };
      return Result.succeed(parts.length >= 3 ? { ...named, group: parts.slice(2).join(".") } : named);
    }
    if (typeof arg1 === "string" && arg1.includes(".")) {
      const dot = arg1.indexOf(".");
      return Result.succeed({ group: arg1.slice(dot + 1), anyName: arg1.slice(0, dot) });
    }
    return Result.succeed({ anyName: arg1 });
  }
  if (blank(arg3)) {
    if (typeof arg1 === "string" && arg1.includes("/")) {
      const slash = arg1.lastIndexOf("/");
      return Result.succeed({ group: arg1.slice(0, slash), version: arg1.slice(slash + 1), anyName: arg2 });
    }
    if (arg1 === "v1") return Result.succeed({ group: "", version: "v1", anyName: arg2 });
    return Result.succeed({ group: text(arg1), anyName: arg2 });
  }
  return Result.succeed({ group: text(arg1), version: text(arg2), anyName: arg3 });
};
