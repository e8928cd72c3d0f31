#!/usr/bin/env node
/**
 * The `kopf` executable: registers tsx's ESM loader (so handler files written in TypeScript load
 * directly, including their `./x.js`-style imports of `.ts` files), wires the process's streams
 * and environment into {@link Cli.main}, and exits with its exit code. For `kopf run`, it first
 * sizes V8's heap for an operator ({@link HeapSizing}) and gives memory back when the operator
 * falls idle ({@link HeapRelease}).
 *
 * Signals: `kopf run` leaves them to the operator (the runtime's `Signals`, as Kopf does): the
 * first SIGINT/SIGTERM stops it gracefully (handlers finish, cleanup handlers run, exit code 0),
 * a second one — or `process.ultimateExitingTimeout` — exits at once. `kopf emulator` stops on the
 * first signal (saving its state file) and exits at once on a second one.
 */
import * as HeapRelease from "./HeapRelease.ts";
import * as HeapSizing from "./HeapSizing.ts";

const argv = process.argv.slice(2);
// Before the rest loads, so that loading it grows the heap only as far as an operator's would.
if (argv[0] === "run") {
  HeapSizing.apply(HeapSizing.plan(process.execArgv, process.env.NODE_OPTIONS));
  HeapRelease.start();
}

const { register } = await import("tsx/esm/api");
const Cli = await import("./Cli.ts");

register();

const controller = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (controller.signal.aborted) {
    process.stderr.write(`Received ${signal} again: stopping at once.\n`);
    process.exit(1);
  }
  controller.abort();
};
const ownSignals = argv[0] === "emulator";
if (ownSignals) {
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

const result = await Cli.main(argv, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  signal: ownSignals ? controller.signal : undefined,
});
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
process.exitCode = result.exitCode;
