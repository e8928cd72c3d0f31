/**
 * A handler `Logger` (the synchronous interface handlers call) that writes through Effect's
 * logging of the fiber that created it, annotated with the logger's name (Kopf's
 * `kopf.activities.startup` and such). Used where the caller gives no logger of its own.
 */
import type { Logger } from "@kopf/registry";
import * as Effect from "effect/Effect";
import { messageOf } from "./texts.ts";

const suffix = (args: ReadonlyArray<unknown>): string =>
  args.length === 0 ? "" : ` ${args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`;

/** A logger bound to the current fiber's services, named `name`. */
export const make = (name: string): Effect.Effect<Logger> =>
  Effect.map(Effect.context<never>(), (services) => {
    const run = Effect.runSyncWith(services);
    const log = (effect: Effect.Effect<void>) => run(Effect.annotateLogs(effect, { logger: name }));
    return {
      debug: (message, ...args) => log(Effect.logDebug(message + suffix(args))),
      info: (message, ...args) => log(Effect.logInfo(message + suffix(args))),
      warning: (message, ...args) => log(Effect.logWarning(message + suffix(args))),
      error: (message, ...args) => log(Effect.logError(message + suffix(args))),
      exception: (message, error) =>
        log(
          Effect.logError(
            error === undefined
              ? message
              : `${message}\n${error instanceof Error && error.stack ? error.stack : messageOf(error)}`,
          ),
        ),
    };
  });
