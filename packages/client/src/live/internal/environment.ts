/**
 * The environment variables the live logins read (`KUBECONFIG`, `HOME`, `KUBERNETES_SERVICE_*`),
 * taken from Effect's current `ConfigProvider` (the process environment by default; a test or an
 * embedding application may provide another) unless the caller passes an environment of its own.
 */
import { Config, Effect, Option } from "effect";

/** An environment as the logins take it. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The named variables: from `given` when there is one, else from the current `ConfigProvider`
 * (an unset or unreadable variable is `undefined`).
 *
 * @example
 * ```ts
 * const env = yield* variables(["KUBECONFIG", "HOME"]) // { KUBECONFIG: "/a:/b", HOME: "/home/me" }
 * ```
 */
export const variables = (names: ReadonlyArray<string>, given?: Environment): Effect.Effect<Environment> =>
  given !== undefined
    ? Effect.succeed(given)
    : Effect.forEach(names, (name) =>
        Config.option(Config.String(name)).pipe(
          Effect.map((value) => [name, Option.getOrUndefined(value)] as const),
          Effect.orElseSucceed(() => [name, undefined] as const),
        ),
      ).pipe(Effect.map((entries) => Object.fromEntries(entries)));
