/**
 * How the `kopf` executable imports handler files written in TypeScript. Node.js strips the
 * types itself (from 22.18 on, unless `--no-experimental-strip-types`), which with the compile
 * cache costs next to nothing at start; tsx (some 0.1–0.2 s of CPU and ~12 MiB more at start) is
 * loaded only when Node.js's stripping cannot load a file:
 * - syntax that needs transforming rather than erasing (enums, namespaces, parameter
 *   properties, decorators), `.tsx` files, TypeScript under `node_modules`: the import fails
 *   while Node.js parses and links the files, before any of them runs, and is retried through
 *   tsx (so the handler file runs once);
 * - files that are CommonJS to Node.js (`.cts`, or `.ts` outside a `"type": "module"` package):
 *   tsx from the start, as a failed attempt would leave the ES modules it reached half-loaded,
 *   which tsx's CommonJS loading cannot require then;
 * - `KOPF_TYPESCRIPT=tsx` in the environment: tsx from the start, e.g. for `paths` aliases of a
 *   `tsconfig.json`, which only tsx reads.
 *
 * The imports TypeScript projects write for Node.js's module resolution (`./x.js` naming the
 * file `./x.ts` compiles to, the same for `.mjs`/`.cjs`) and the extensionless or directory
 * imports of bundler-style projects are resolved to their TypeScript files by a resolution hook,
 * without tsx.
 */
import * as Module from "node:module";
import type { Importer } from "./Loading.ts";

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;
const TYPESCRIPT_PARENT = /\.[cm]?tsx?(?:[?#].*)?$/;
const RELATIVE = /^(?:\.{1,2}(?:\/|$)|\/|file:)/;

/** Import failures after which tsx can load what Node.js's own type stripping could not. */
const TSX_CAN_LOAD = new Set([
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_INVALID_TYPESCRIPT_SYNTAX",
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING",
]);

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;

/**
 * Whether an import that failed under Node.js's own type stripping is retried through tsx: for
 * what only a transforming loader handles, all of it detected before any module runs (a syntax
 * error of a file that tsx cannot parse either is then reported by tsx). A missing module or a
 * failure of the file's own code is not retried.
 *
 * @example
 * retriesWithTsx({ code: "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX" }) // true (an enum)
 * retriesWithTsx({ code: "ERR_MODULE_NOT_FOUND" }) // false
 */
export const retriesWithTsx = (error: unknown): boolean => {
  const code = codeOf(error);
  if (code !== undefined) return TSX_CAN_LOAD.has(code);
  return error instanceof SyntaxError;
};

/**
 * The TypeScript files an unresolvable relative import of a TypeScript file may mean, in the
 * order tried: `./x.js` → `./x.ts`, `./x.mjs` → `./x.mts`, `./x.cjs` → `./x.cts`; `./x` →
 * `./x.ts`, `./x/index.ts`. None for other specifiers.
 *
 * @example
 * typeScriptCandidates("./model.js") // ["./model.ts"]
 * typeScriptCandidates("../lib") // ["../lib.ts", "../lib/index.ts"]
 * typeScriptCandidates("kopf") // []
 */
export const typeScriptCandidates = (specifier: string): ReadonlyArray<string> => {
  if (!RELATIVE.test(specifier) || /[?#]/.test(specifier)) return [];
  const swapped = /^(.*)\.([cm]?)js$/.exec(specifier);
  if (swapped !== null) return [`${swapped[1]}.${swapped[2]}ts`];
  const last = specifier.slice(specifier.lastIndexOf("/") + 1);
  if (last === "" || last === "." || last === "..") return [`${specifier.replace(/\/?$/, "/")}index.ts`];
  if (last.includes(".")) return [];
  return [`${specifier}.ts`, `${specifier}/index.ts`];
};

/**
 * Whether Node.js treats a TypeScript file as an ES module: `.mts` always, `.cts` never, `.ts`
 * when the nearest `package.json` above it says `"type": "module"`. `packageType` reads the
 * `type` of the `package.json` in a directory (`null`: none there; `undefined`: no `type`).
 *
 * @example
 * isModuleFile("/op/src/handlers.ts", (dir) => (dir === "/op" ? "module" : null)) // true
 * isModuleFile("/op/handlers.cts", () => "module") // false
 */
export const isModuleFile = (
  path: string,
  packageType: (dir: string) => string | undefined | null,
): boolean => {
  if (path.endsWith(".mts")) return true;
  if (!/\.tsx?$/.test(path)) return false;
  let dir = path.slice(0, Math.max(path.lastIndexOf("/"), 0)) || "/";
  while (true) {
    const type = packageType(dir);
    if (type !== null) return type === "module";
    if (dir === "/") return false;
    dir = dir.slice(0, Math.max(dir.lastIndexOf("/"), 0)) || "/";
  }
};

const UNRESOLVED = new Set(["ERR_MODULE_NOT_FOUND", "ERR_UNSUPPORTED_DIR_IMPORT"]);

let resolving = false;

/** Registers (once) the resolution of TypeScript files' `./x.js`, extensionless and directory imports. */
const registerResolution = (): void => {
  if (resolving) return;
  resolving = true;
  Module.registerHooks({
    resolve: (specifier, context, nextResolve) => {
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        const parent = context.parentURL;
        if (parent === undefined || !TYPESCRIPT_PARENT.test(parent) || !UNRESOLVED.has(codeOf(error) ?? "")) {
          throw error;
        }
        for (const candidate of typeScriptCandidates(specifier)) {
          try {
            return nextResolve(candidate, context);
          } catch {
            // Not this one: the next candidate, else the original failure.
          }
        }
        throw error;
      }
    },
  });
};

/** How {@link makeImporter} imports TypeScript. */
export interface ImportOptions {
  /** Whether Node.js strips types itself (`process.features.typescript`). */
  readonly native: boolean;
  /** Whether a TypeScript file (a `file:` URL) is an ES module to Node.js. */
  readonly isModule: (specifier: string) => boolean;
  /** Load TypeScript through tsx from the start (`KOPF_TYPESCRIPT=tsx`). */
  readonly tsxOnly: boolean;
  /** Loads and registers tsx's loader (called once, on first need). */
  readonly loadTsx: () => Promise<void>;
  /** How to import a specifier once the loaders are in place (`import()`). */
  readonly load: Importer;
}

/**
 * The importer of handler files: JavaScript as it is; TypeScript through Node.js's own type
 * stripping where it can, else (and from then on) through tsx.
 *
 * @example
 * ```ts
 * const importer = makeImporter({
 *   native: Boolean(process.features.typescript),
 *   isModule: (specifier) => isModuleFile(fileURLToPath(specifier), (dir) => typeOfPackageIn(dir)),
 *   tsxOnly: process.env.KOPF_TYPESCRIPT === "tsx",
 *   loadTsx: () => import("tsx/esm/api").then(({ register }) => void register()),
 *   load: (specifier) => import(specifier),
 * })
 * await importer(pathToFileURL("handlers.ts").href)
 * ```
 */
export const makeImporter = (options: ImportOptions): Importer => {
  let tsx: Promise<void> | undefined;
  const withTsx = (specifier: string) => {
    tsx ??= options.loadTsx();
    return tsx.then(() => options.load(specifier));
  };
  return async (specifier) => {
    if (!TYPESCRIPT_FILE.test(specifier)) return options.load(specifier);
    if (tsx !== undefined || options.tsxOnly || !options.native || !options.isModule(specifier)) {
      return withTsx(specifier);
    }
    registerResolution();
    try {
      return await options.load(specifier);
    } catch (error) {
      if (retriesWithTsx(error)) return withTsx(specifier);
      throw withAliasHint(error);
    }
  };
};

/** A missing package named by a TypeScript file may be a `tsconfig.json` alias: says how to load those. */
const withAliasHint = (error: unknown): unknown => {
  if (codeOf(error) !== "ERR_MODULE_NOT_FOUND" || !(error instanceof Error)) return error;
  if (!error.message.startsWith("Cannot find package")) return error;
  const hinted = new Error(
    `${error.message} (if it is a \`paths\` alias of a tsconfig.json: KOPF_TYPESCRIPT=tsx loads TypeScript through tsx, which resolves those)`,
    { cause: error },
  );
  return Object.assign(hinted, { code: "ERR_MODULE_NOT_FOUND" });
};
