#!/usr/bin/env node
/**
 * The `kopf-emulator` executable: runs {@link EmulatorMain.main} under Node's runtime, which
 * interrupts it on SIGINT/SIGTERM so the server closes and the state file is saved.
 */
import { NodeRuntime } from "@effect/platform-node";
import * as Effect from "effect/Effect";
import * as EmulatorMain from "./EmulatorMain.ts";

NodeRuntime.runMain(
  EmulatorMain.main(process.argv.slice(2)).pipe(
    Effect.flatMap((code) => Effect.sync(() => (process.exitCode = code))),
  ),
);
