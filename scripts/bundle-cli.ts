// Bundles the installed `kopf` executable (part of `pnpm build` and `npm run pack`): esbuild reads
// the TypeScript sources of @kopf/cli and of the workspace packages it imports (the `@kopf/source`
// export condition), Effect, yaml, yargs and undici, and writes packages/cli/dist/bundle/:
//   main.js  the entry `bin/kopf.js` runs under node_modules (packages/cli/src/installed.ts);
//   kopf.js  the `kopf` facade, which the handler files' `import "kopf"` is resolved to at run time;
//   chunk-*.js  the modules both share (one copy: one default registry), and the modules loaded
//            only on demand (the embedded emulator's glue, `kopf manifests`' discovery).
// Of undici only the dispatchers the live transport uses are bundled (see UNDICI below), without
// its HTTP/2 client's use of Node.js's http2 (see UNDICI_H2).
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
 * What the live transport takes from undici (`const { ... } = yield* Effect.promise(() =>
 * import("undici"))` in packages/client/src/live/UndiciTransport.ts), each from its own file.
 * undici's entry module loads all of undici (fetch, WebSocket, caches, mocks: 0.75 of the
 * bundle's 1.8 MiB), and its cookie helpers read `globalThis.Headers`, which makes Node.js load
 * its own copy of undici for that global (~80 ms and ~16 MiB more); the transport needs only the
 * dispatchers, and the request API that undici's entry module mixes into them.
 */
const UNDICI = {
  Pool: "lib/dispatcher/pool.js",
  ProxyAgent: "lib/dispatcher/proxy-agent.js",
  EnvHttpProxyAgent: "lib/dispatcher/env-http-proxy-agent.js",
};
const TRANSPORT = join(root, "packages/client/src/live/UndiciTransport.ts");

const undiciDispatchers: Plugin = {
  name: "undici-dispatchers",
  setup(bundle) {
    bundle.onResolve({ filter: /^undici$/ }, (args) => ({ path: args.importer, namespace: "undici" }));
    bundle.onLoad({ filter: /.*/, namespace: "undici" }, (args) => {
      const taken = /const \{([^}]*)\} = yield\* Effect\.promise\(\(\) => import\("undici"\)\)/.exec(
        readFileSync(TRANSPORT, "utf8"),
      );
      const names = taken?.[1]?.split(",").map((name) => name.trim()) ?? [];
      if (args.path !== TRANSPORT || names.sort().join() !== Object.keys(UNDICI).sort().join()) {
        return {
          errors: [{ text: `${args.path} imports undici unlike the bundle's undici table: revise it` }],
        };
      }
      const undici = dirname(createRequire(TRANSPORT).resolve("undici"));
      const from = (file: string) => JSON.stringify(join(undici, file));
      const lines = [
        `import Dispatcher from ${from("lib/dispatcher/dispatcher.js")};`,
        `import api from ${from("lib/api/index.js")};`,
        ...Object.entries(UNDICI).map(([name, file]) => `import ${name} from ${from(file)};`),
        "Object.assign(Dispatcher.prototype, api);",
        `export { ${Object.keys(UNDICI).join(", ")} };`,
      ];
      return { contents: lines.join("\n"), resolveDir: undici };
    });
  },
};

/**
 * A plugin that edits one library file (JavaScript) as the bundle reads it: `edit` answers the
 * edited source, or the problem that makes the edit no longer apply (the build fails naming it).
 */
const editing = (
  name: string,
  filter: RegExp,
  edit: (source: string) => { readonly contents: string } | { readonly problem: string },
): Plugin => ({
  name,
  setup(bundle) {
    bundle.onLoad({ filter }, (args) => {
      const edited = edit(readFileSync(args.path, "utf8"));
      return "problem" in edited
        ? { errors: [{ text: `${args.path}: ${edited.problem}: revise the ${name} plugin` }] }
        : { contents: edited.contents, loader: "js" };
    });
  },
});

/** An exact replacement in a library file: the text it must still have, and what takes its place. */
type Replacement = readonly [from: string, to: string];

/**
 * `source` with each replacement made once, or the problem that the file no longer has the text
 * one of them replaces (the edits of the plugins below are all of this kind).
 */
const replaced = (
  source: string,
  replacements: ReadonlyArray<Replacement>,
): { readonly contents: string } | { readonly problem: string } => {
  let contents = source;
  for (const [from, to] of replacements) {
    if (!contents.includes(from)) return { problem: `no longer has ${from}` };
    contents = contents.replace(from, to);
  }
  return { contents };
};

/**
 * undici's HTTP/2 client loads Node.js's http2 module as it is itself loaded (~2.5 MiB of RSS at
 * every start), for its constants; it runs only on connections whose TLS handshake chose HTTP/2,
 * which the live transport never offers (`allowH2: false`). The bundle's undici takes the path
 * undici has for a Node.js without http2 instead; should the transport ever allow HTTP/2, the
 * bundle fails to build rather than ship an HTTP/2 client without http2.
 */
const UNDICI_H2 = /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/;
const H2_REQUIRE = "http2 = require('node:http2')";
const undiciWithoutH2 = editing("undici-without-h2", UNDICI_H2, (source) => {
  const transport = readFileSync(TRANSPORT, "utf8");
  if (!/allowH2: false/.test(transport) || /allowH2: true/.test(transport)) {
    return { problem: `${TRANSPORT} changed whether HTTP/2 is allowed` };
  }
  return replaced(source, [[H2_REQUIRE, "throw new Error('the bundled undici speaks HTTP/1.1 only')"]]);
});

/**
 * yargs renders a command's whole help text after every parse, to have it ready should the
 * command's handler fail later; measuring each line's display width (with `Intl.Segmenter`) costs
 * ~0.13 s of CPU and ~4 MiB at every start. kopf's commands have no handlers (the parse callback
 * reports what failed, with its own hint to `--help`), so the bundle's yargs skips that.
 */
const YARGS_COMMAND = /[\\/]yargs[\\/]build[\\/]lib[\\/]command\.js$/;
const HELP_CACHE = "yargs.getInternalMethods().getUsageInstance().cacheHelpMessage();";
const yargsHelpCache = editing("yargs-help-cache", YARGS_COMMAND, (source) =>
  replaced(source, [[HELP_CACHE, ""]]),
);

/**
 * string-width (yargs measures its help text's columns with it, through cliui and wrap-ansi)
 * makes an `Intl.Segmenter` as it is loaded, and making one loads ICU's text-boundary data:
 * ~2.5 MiB of RSS (pages of the `node` binary and the C allocator's) at every start of the
 * operator, which renders no help. The bundle's string-width makes it when it first measures.
 */
const STRING_WIDTH = /[\\/]string-width[\\/]index\.js$/;
const EAGER_SEGMENTER = "const segmenter = new Intl.Segmenter();";
const LAZY_SEGMENTER =
  "let madeSegmenter; const segmenter = { segment: (text) => (madeSegmenter ??= new Intl.Segmenter()).segment(text) };";
const lazySegmenter = editing("lazy-segmenter", STRING_WIDTH, (source) => {
  // Besides its declaration, the code (comments aside) may use it only as `segmenter.segment(…)`,
  // which the lazy one serves.
  const code = source.replace(EAGER_SEGMENTER, "").replace(/\/\/[^\n]*/g, "");
  if (/\bsegmenter\b(?!\.segment\()/.test(code))
    return { problem: "uses its segmenter other than by segment()" };
  return replaced(source, [[EAGER_SEGMENTER, LAZY_SEGMENTER]]);
});

/**
 * yargs and two of its helpers take Node.js's `util` and `assert` through ES imports. An ES
 * import of one of Node.js's own modules builds its whole namespace, which runs every lazy getter
 * of `util` (loading `parseArgs`, `diff`, the worker threads behind one of them), and `assert`
 * loads its diffing and error modules: together ~0.6 MiB of RSS at every start, for an
 * `inspect`, two `format`s and two invariant checks. The bundle's copies take `inspect` and
 * `format` from the module object itself (`process.getBuiltinModule`, no namespace) and check
 * the invariants themselves (with `assert`'s comparison, `Object.is`).
 */
const UTIL_FORMAT: Replacement = [
  "import { format } from 'util';",
  "const { format } = process.getBuiltinModule('util');",
];
const yargsBuiltins = editing(
  "yargs-builtins",
  /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/,
  (source) =>
    replaced(source, [
      [
        "import { notStrictEqual, strictEqual } from 'assert'",
        [
          "const invariant = (holds, message) => { if (!holds) throw new Error(message instanceof Error ? message.message : (message ?? 'yargs: an internal invariant failed')); };",
          "const notStrictEqual = (actual, expected, message) => invariant(!Object.is(actual, expected), message);",
          "const strictEqual = (actual, expected, message) => invariant(Object.is(actual, expected), message);",
        ].join("\n"),
      ],
      ["import { inspect } from 'util'", "const { inspect } = process.getBuiltinModule('util')"],
    ]),
);
const yargsParserBuiltins = editing(
  "yargs-parser-builtins",
  /[\\/]yargs-parser[\\/]build[\\/]lib[\\/]index\.js$/,
  (source) => replaced(source, [UTIL_FORMAT]),
);
const y18nBuiltins = editing(
  "y18n-builtins",
  /[\\/]y18n[\\/]build[\\/]lib[\\/]platform-shims[\\/]node\.js$/,
  (source) => replaced(source, [UTIL_FORMAT]),
);

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
  // Without comments and indentation the chunks are a third smaller (V8 keeps them in memory as
  // the scripts' source); names stay, so stack traces still name the functions. The
  // licence comments go to files of their own: one non-ASCII letter in a chunk (a name in them)
  // would make V8 hold all of that chunk's source as two-byte characters.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "linked",
  plugins: [
    undiciDispatchers,
    undiciWithoutH2,
    yargsHelpCache,
    lazySegmenter,
    yargsBuiltins,
    yargsParserBuiltins,
    y18nBuiltins,
  ],
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `bundle-cli: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB in ${outdir}`,
);
