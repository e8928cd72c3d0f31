#!/usr/bin/env node
// The `kopf` executable's launcher. It first checks the Node.js version (one line and exit code 1
// on a Node.js that is too old: nothing else is imported before that). Installed from a registry
// (under node_modules), it then runs the bundled CLI (dist/bundle/main.js, see src/installed.ts:
// a few large files start faster than the ~800 modules of the packages' builds). In a checkout of the
// repository it runs the TypeScript sources directly (Node strips types; it refuses to under
// node_modules), resolving the workspace packages to their sources through the `@kopf/source`
// export condition: no build step, and never a stale build.
import { problem } from "./node-version.js";

const tooOld = problem(process.versions.node, process.execPath);
if (tooOld !== undefined) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(1);
}

const { realpathSync } = await import("node:fs");
const { fileURLToPath } = await import("node:url");
const here = realpathSync(fileURLToPath(import.meta.url));
if (here.includes("/node_modules/")) {
  await import(new URL("../dist/bundle/main.js", import.meta.url).href);
} else {
  const { registerHooks } = await import("node:module");
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, "@kopf/source"] }),
  });
  await import(new URL("../src/main.ts", import.meta.url).href);
}
