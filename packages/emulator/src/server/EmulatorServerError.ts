/** Failures of the emulator's HTTP(S) server: it could not start listening, or not restart. */
import * as Data from "effect/Data";

/** The server could not (re)start. */
export class EmulatorServerError extends Data.TaggedError("EmulatorServerError")<{
  readonly reason: "Listen" | "Certificate";
  readonly message: string;
}> {}
