// Bundles the installed `kopf` executable (part of `pnpm build` and `npm run pack`): esbuild reads
// the TypeScript sources of @kopf/cli and of the workspace packages it imports (the `@kopf/source`
// export condition), Effect, yaml, yargs and undici, and writes packages/cli/dist/bundle/:
//   main.js  the entry `bin/kopf.js` runs under node_modules (packages/cli/src/installed.ts);
//   kopf.js  the `kopf` facade, which the handler files' `import "kopf"` is resolved to at run time;
//   chunk-*.js  the modules both share (one copy: one default registry), and the modules loaded
//            only on demand (the embedded emulator's glue, `kopf manifests`' discovery).
// Left out and loaded from node_modules when used: tsx (handler files in TypeScript), the
// emulator and testing kit, and the heavy libraries of optional features (metrics, tracing,
// webhook certificates, the Kubernetes client libraries behind some kubeconfig authentications);
// @kopf/cli declares them as its own dependencies so that they resolve from the bundle.
//
//   node scripts/bundle-cli.ts [OUTDIR]    (default packages/cli/dist/bundle; tests bundle elsewhere)
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(process.argv[2] ?? join(root, "packages/cli/dist/bundle"));

/** Packages resolved from node_modules at run time (loaded on first use, or never for `kopf run`). */
const EXTERNAL = [
  "tsx",
  "@kopf/emulator",
  "@kopf/testing",
  "prom-client",
  "@opentelemetry/*",
  "@effect/opentelemetry",
  "node-forge",
  "@kubernetes/client-node",
  "kubernetes-fluent-client",
];

/**
 * CommonJS packages the sources load with `import()` and destructure (`const { Pool } =
 * await import("undici")`), keyed by a workspace package that depends on them. Node.js gives
 * such an import named exports; a bundle's on-demand chunk would give only `default`, so each is
 * wrapped in a module naming every export.
 */
const COMMONJS = { undici: "packages/client" };

const namedCommonJs: Plugin = {
  name: "named-commonjs",
  setup(bundle) {
    const filter = new RegExp(`^(${Object.keys(COMMONJS).join("|")})$`);
    bundle.onResolve({ filter }, (args) =>
      args.namespace === "named-commonjs" ? undefined : { path: args.path, namespace: "named-commonjs" },
    );
    bundle.onLoad({ filter: /.*/, namespace: "named-commonjs" }, (args) => {
      const from = join(root, COMMONJS[args.path as keyof typeof COMMONJS], "package.json");
      const names = Object.keys(createRequire(from)(args.path)).filter((name) =>
        /^[A-Za-z_$][\w$]*$/.test(name),
      );
      return {
        contents: `import m from ${JSON.stringify(args.path)};\nexport default m;\nexport const { ${names.join(", ")} } = m;\n`,
        resolveDir: dirname(from),
      };
    });
  },
};

/**
 * undici's cookie helpers (never used here) read `globalThis.Headers` when undici loads, which
 * makes Node.js load its own bundled copy of undici for that global: ~80 ms of CPU and ~16 MiB
 * at every start. The bundle's copy checks against undici's own `Headers` only.
 */
const COOKIES = /[\\/]undici[\\/]lib[\\/]web[\\/]cookies[\\/]index\.js$/;
const GLOBAL_HEADERS = "[Headers, globalThis.Headers].filter(Boolean)";
const undiciCookies: Plugin = {
  name: "undici-cookies",
  setup(bundle) {
    bundle.onLoad({ filter: COOKIES }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes(GLOBAL_HEADERS)) {
        return {
          errors: [
            { text: `${args.path} no longer has ${GLOBAL_HEADERS}: revise the undici-cookies plugin` },
          ],
        };
      }
      return { contents: source.replace(GLOBAL_HEADERS, "[Headers]"), loader: "js" };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: {
    main: join(root, "packages/cli/src/installed.ts"),
    kopf: join(root, "packages/kopf/src/index.ts"),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22.19",
  conditions: ["@kopf/source"],
  external: EXTERNAL,
  // undici and yargs' helpers are CommonJS that `require()` Node's modules.
  banner: {
    js: 'import { createRequire as __kopfRequire } from "node:module";\nconst require = __kopfRequire(import.meta.url);',
  },
  // Without comments and indentation the chunks are 1.8 MiB instead of 2.5, which V8 keeps in
  // memory as the scripts' source; names stay, so stack traces still name the functions. The
  // licence comments go to files of their own: one non-ASCII letter in a chunk (a name in them)
  // would make V8 hold all of that chunk's source as two-byte characters.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "linked",
  plugins: [namedCommonJs, undiciCookies],
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `bundle-cli: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB in ${outdir}`,
);
