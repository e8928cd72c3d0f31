/**
 * The entry of the `kopf` executable as installed from a registry: `bin/kopf.js` runs its bundled
 * form (`dist/bundle/main.js`, made by `scripts/bundle-cli.ts`), one file holding the command and
 * every `@kopf/*` package, Effect and the libraries `kopf run` needs, so that Node.js reads and
 * compiles a few large files instead of about 800 small ones.
 *
 * Two things happen before the command is imported:
 * - Node.js's compile cache is turned on (`module.enableCompileCache()`, in `NODE_COMPILE_CACHE` or
 *   else the system's temporary directory; the generated Deployment mounts `/tmp` writable), so a
 *   restarted operator skips compiling the bundle again. Without a writable directory it stays
 *   off, silently; `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 * - The handler files' `import ... from "kopf"` is resolved to the bundle's own copy of the facade
 *   (`dist/bundle/kopf.js`, sharing its modules with the command): there is one default registry,
 *   the one `kopf run` serves, instead of a second copy of the framework loaded from the `kopf`
 *   package beside it.
 */
import * as Module from "node:module";

Module.enableCompileCache();

const facade = new URL("./kopf.js", import.meta.url).href;
Module.registerHooks({
  resolve: (specifier, context, nextResolve) =>
    specifier === "kopf" ? { url: facade, shortCircuit: true } : nextResolve(specifier, context),
});

await import("./main.ts");
