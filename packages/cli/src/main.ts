#!/usr/bin/env node
/**
 * The `kopf` executable: wires the process's streams and environment into {@link Cli.main}, and
 * exits with its exit code. Handler files written in TypeScript load directly: tsx's ESM loader is
 * registered before the first of them is imported (so their `./x.js`-style imports of `.ts` files
 * work too); an operator whose handler files are JavaScript (a built image) never loads tsx.
 * For `kopf run`, before the rest loads, it sizes V8's heap for an operator ({@link HeapSizing})
 * and gives memory back when the operator falls idle ({@link HeapRelease}); `KOPF_HEAP_TUNING=off`
 * leaves V8's defaults.
 *
 * Signals: `kopf run` leaves them to the operator (the runtime's `Signals`, as Kopf does): the
 * first SIGINT/SIGTERM stops it gracefully (handlers finish, cleanup handlers run, exit code 0),
 * a second one — or `process.ultimateExitingTimeout` — exits at once. `kopf emulator` stops on the
 * first signal (saving its state file) and exits at once on a second one.
 */
import * as HeapRelease from "./HeapRelease.ts";
import * as HeapSizing from "./HeapSizing.ts";
import type { Importer } from "./Loading.ts";

const argv = process.argv.slice(2);
// Before the rest loads, so that loading it grows the heap only as far as an operator's would.
if (argv[0] === "run" && process.env.KOPF_HEAP_TUNING !== "off") {
  HeapSizing.apply(HeapSizing.plan(process.execArgv, process.env.NODE_OPTIONS));
  HeapRelease.start();
}

const Cli = await import("./Cli.ts");

const TYPESCRIPT = /\.[cm]?tsx?$/;
let typescript: Promise<void> | undefined;
const importer: Importer = async (specifier) => {
  if (TYPESCRIPT.test(specifier)) {
    typescript ??= import("tsx/esm/api").then(({ register }) => {
      register();
    });
    await typescript;
  }
  return import(specifier);
};

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
  importer,
  signal: ownSignals ? controller.signal : undefined,
});
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
process.exitCode = result.exitCode;
