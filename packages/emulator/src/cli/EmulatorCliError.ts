/** The failure of the `kopf emulator` command line: a usage error, a bad file, an object not applied. */
import * as Data from "effect/Data";

/** Why the command could not run. */
export class EmulatorCliError extends Data.TaggedError("EmulatorCliError")<{
  /** `Help`: help or the version was asked for and printed; nothing else to do. */
  readonly reason: "Usage" | "Help" | "CrdFile" | "StateFile" | "Apply";
  readonly message: string;
}> {}
