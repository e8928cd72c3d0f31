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
import { rmSync } from "node:fs";
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
  legalComments: "eof",
  plugins: [namedCommonJs],
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `bundle-cli: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB in ${outdir}`,
);
