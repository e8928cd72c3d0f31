#!/usr/bin/env node
// The `kopf` executable's launcher. Installed from a registry (under node_modules), it runs the
// built CLI (dist/main.js). In a checkout of the repository it runs the TypeScript sources
// directly (Node 24 strips types; it refuses to under node_modules), resolving the workspace
// packages to their sources through the `@kopf/source` export condition: no build step, and
// never a stale build.
import { realpathSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const here = realpathSync(fileURLToPath(import.meta.url));
if (here.includes("/node_modules/")) {
  await import(new URL("../dist/main.js", import.meta.url).href);
} else {
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, "@kopf/source"] }),
  });
  await import(new URL("../src/main.ts", import.meta.url).href);
}
