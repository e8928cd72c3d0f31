/**
 * The `kopf-emulator` program: parses the command line and runs the emulator (the core with
 * webhook admission, the fault injector and the server) until interrupted. Usage errors are
 * printed with a hint and give exit code 2, start-up failures exit code 1.
 */
import * as Console from "effect/Console";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as WebhookAdmission from "../admission/WebhookAdmission.ts";
import { KubeEmulator } from "../api/Emulator.ts";
import { FaultInjector } from "../control/FaultInjector.ts";
import * as EmulatorCommand from "./EmulatorCommand.ts";

/** The emulator services the command runs on: the core calling real webhooks, and fault injection. */
export const layer = Layer.merge(
  KubeEmulator.layer({ admission: WebhookAdmission.hook }),
  FaultInjector.layer,
);

/**
 * Runs the emulator with the given options until interrupted (what `kopf emulator` mounts).
 *
 * @example
 * ```ts
 * NodeRuntime.runMain(EmulatorMain.run(yield* EmulatorCommand.parse(["--port", "6443"])));
 * ```
 */
export const run = (
  options: EmulatorCommand.EmulatorCliOptions,
): Effect.Effect<never, EmulatorCommand.StartError> =>
  EmulatorCommand.serve(options).pipe(Effect.provide(layer));

/** The whole program for a command line; answers the process exit code on failure. */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  EmulatorCommand.parse(argv).pipe(
    Effect.flatMap(run),
    Effect.catch((error) => {
      if (error._tag === "EmulatorCliError" && error.reason === "Help") return Effect.succeed(0);
      if (error._tag === "EmulatorCliError" && error.reason === "Usage") {
        return Console.error(`kopf-emulator: ${error.message}\nTry kopf-emulator --help.`).pipe(Effect.as(2));
      }
      return Console.error(`kopf-emulator: ${error.message}`).pipe(Effect.as(1));
    }),
  );
