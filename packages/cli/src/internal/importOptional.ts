/**
 * Importing a development-only package (an optional peer dependency) when a command needs it: a
 * missing one becomes an error naming it and how to install it, not a bare module-not-found.
 */
import * as Effect from "effect/Effect";

const isMissing = (error: unknown, name: string): boolean =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  error.code === "ERR_MODULE_NOT_FOUND" &&
  "message" in error &&
  String(error.message).includes(`'${name}'`);

/**
 * Runs `load`; when it fails because one of `names` is not installed, the error says which.
 *
 * @example
 * ```ts
 * const Embedded = yield* importOptional(["@kopf/testing"], () => import("./Embedded.ts"))
 * ```
 */
export const importOptional = <A>(
  names: ReadonlyArray<string>,
  load: () => Promise<A>,
): Effect.Effect<A, Error> =>
  Effect.tryPromise({
    try: load,
    catch: (error) => {
      const missing = names.find((name) => isMissing(error, name));
      if (missing !== undefined)
        return new Error(
          `this needs the package ${missing}, a development dependency: npm install --save-dev ${missing}`,
        );
      return error instanceof Error ? error : new Error(String(error));
    },
  });
