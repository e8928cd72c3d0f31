#!/usr/bin/env node
/**
 * The `kopf` executable: registers tsx's ESM loader (so handler files written in TypeScript load
 * directly, including their `./x.js`-style imports of `.ts` files), wires the process's streams,
 * environment and signals into {@link Cli.main}, and exits with its exit code. The first SIGINT or
 * SIGTERM stops the operator gracefully (handlers finish, cleanup handlers run, exit code 0); a
 * second one stops the process at once.
 */
import { register } from "tsx/esm/api";
import * as Cli from "./Cli.ts";

register();

const controller = new AbortController();
const SIGNAL_CODES: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };
const onSignal = (signal: NodeJS.Signals) => {
  if (controller.signal.aborted) {
    process.stderr.write(`Received ${signal} again: stopping at once.\n`);
    process.exit(SIGNAL_CODES[signal] ?? 1);
  }
  controller.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const result = await Cli.main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
process.exitCode = result.exitCode;
