#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
/**
 * The `kopf` executable: wires the process's streams and environment into {@link Cli.main}, and
 * exits with its exit code. Handler files written in TypeScript load directly: through Node.js's
 * own type stripping, or tsx where that cannot load them ({@link TypeScriptImport}); an operator
 * whose handler files are JavaScript (a built image) never loads either.
 * For `kopf run`, before the rest loads, it replaces itself once with a Node.js started with a
 * flag V8 reads only at start ({@link StartOnlyFlags}), sizes V8's heap for an operator
 * ({@link HeapSizing}), keeps WebAssembly (undici's HTTP parser) on V8's baseline compiler
 * ({@link WasmTiering}), lets V8's optimizing compiler TurboFan in only once the process has been
 * busy for a while ({@link DeferredOptimization}), and gives memory back when the operator falls
 * idle, start-up's bytecode too ({@link HeapRelease}); `KOPF_HEAP_TUNING=off` leaves V8's defaults.
 *
 * Stderr (the log) is written in batches, one write per turn of the event loop
 * ({@link CoalescingWriter}); what is pending is written before any output to stdout and when
 * the process exits (also by `process.exit` or an uncaught exception).
 *
 * Signals: `kopf run` leaves them to the operator (the runtime's `Signals`, as Kopf does): the
 * first SIGINT/SIGTERM stops it gracefully (handlers finish, cleanup handlers run, exit code 0),
 * a second one — or `process.ultimateExitingTimeout` — exits at once. `kopf emulator` stops on the
 * first signal (saving its state file) and exits at once on a second one.
 */
import * as CoalescingWriter from "./CoalescingWriter.ts";
import * as DeferredOptimization from "./DeferredOptimization.ts";
import * as HeapRelease from "./HeapRelease.ts";
import * as HeapSizing from "./HeapSizing.ts";
import * as StartOnlyFlags from "./StartOnlyFlags.ts";
import * as TypeScriptImport from "./TypeScriptImport.ts";
import * as WasmTiering from "./WasmTiering.ts";

const argv = process.argv.slice(2);
// Before the rest loads, so that loading it grows the heap only as far as an operator's would.
if (argv[0] === "run" && process.env.KOPF_HEAP_TUNING !== "off") {
  // First of all: this may replace the process with one started with a flag V8 reads only then.
  StartOnlyFlags.apply(StartOnlyFlags.plan(StartOnlyFlags.started()));
  HeapSizing.apply(HeapSizing.plan(process.execArgv, process.env.NODE_OPTIONS));
  WasmTiering.apply(WasmTiering.plan(process.execArgv, process.env.NODE_OPTIONS));
  DeferredOptimization.apply(
    DeferredOptimization.plan(process.execArgv, process.env.NODE_OPTIONS, process.versions.v8),
  );
  HeapRelease.start({
    flushStartUpCode: HeapRelease.flushesStartUpCode(process.execArgv, process.env.NODE_OPTIONS),
  });
}

const Cli = await import("./Cli.ts");

/** The `type` of the `package.json` in `dir`: `null` when there is none (or it is unreadable). */
const packageType = (dir: string): string | undefined | null => {
  try {
    const manifest: unknown = JSON.parse(readFileSync(`${dir.replace(/\/$/, "")}/package.json`, "utf-8"));
    return typeof manifest === "object" &&
      manifest !== null &&
      "type" in manifest &&
      typeof manifest.type === "string"
      ? manifest.type
      : undefined;
  } catch {
    return null;
  }
};

const importer = TypeScriptImport.makeImporter({
  native: Boolean(process.features.typescript),
  isModule: (specifier) =>
    specifier.startsWith("file:") && TypeScriptImport.isModuleFile(fileURLToPath(specifier), packageType),
  tsxOnly: process.env.KOPF_TYPESCRIPT === "tsx",
  loadTsx: () =>
    import("tsx/esm/api").then(({ register }) => {
      register();
    }),
  load: (specifier) => import(specifier),
});

const stderr = CoalescingWriter.make((text) => void process.stderr.write(text), setImmediate);
process.on("exit", stderr.flush);

const controller = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (controller.signal.aborted) {
    stderr.write(`Received ${signal} again: stopping at once.\n`);
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
  stdout: (text) => {
    stderr.flush();
    process.stdout.write(text);
  },
  stderr: stderr.write,
  env: process.env,
  cwd: process.cwd(),
  importer,
  signal: ownSignals ? controller.signal : undefined,
});
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
process.exitCode = result.exitCode;
