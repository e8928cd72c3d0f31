/**
 * Loading the operator's handler code (Kopf's `loaders.preload`): handler files by path, in the
 * order given, then importable modules by name. Importing them runs their `kopf.on.*` calls,
 * which register into the facade's default registry. A missing file or a module that fails to
 * import (syntax error, a throwing top level, a missing dependency) is a `LoadError` naming the
 * file and the reason, never a crash with a bare stack.
 *
 * TypeScript files load directly: the `kopf` binary's importer strips their types with Node.js's
 * own stripping or, where that cannot, tsx (see `TypeScriptImport.ts`); inside a test runner that
 * already compiles TypeScript, the runner's own `import` is used instead.
 */
import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";

/** Why the handler code could not be loaded. */
export class LoadError extends Data.TaggedError("LoadError")<{
  readonly reason: "FileNotFound" | "NotAFile" | "ModuleNotFound" | "ImportFailed";
  /** The path or module name that failed. */
  readonly target: string;
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** How to import a resolved specifier (a `file://` URL or a module path); `import()` by default. */
export type Importer = (specifier: string) => Promise<unknown>;

/** What to load and from where. */
export interface LoadOptions {
  readonly paths: ReadonlyArray<string>;
  readonly modules: ReadonlyArray<string>;
  /** The directory relative paths and module names are resolved from (default: the process's cwd). */
  readonly cwd?: string | undefined;
  readonly importer?: Importer | undefined;
}

const defaultImporter: Importer = (specifier) => import(specifier);

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
    return `${name}${error.message}`;
  }
  return String(error);
};

const importing = (target: string, specifier: string, importer: Importer) =>
  Effect.tryPromise({
    try: () => importer(specifier),
    catch: (error) =>
      new LoadError({
        reason: "ImportFailed",
        target,
        message: `Failed to load ${target}: ${describe(error)}`,
        cause: error,
      }),
  });

const loadPath = (cwd: string, path: string, importer: Importer) =>
  Effect.gen(function* () {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    const info = yield* Effect.tryPromise({
      try: () => stat(absolute),
      catch: (error) =>
        new LoadError({
          reason: "FileNotFound",
          target: path,
          message: `Handler file not found: ${path} (looked at ${absolute})`,
          cause: error,
        }),
    });
    if (!info.isFile()) {
      return yield* new LoadError({
        reason: "NotAFile",
        target: path,
        message: `Not a handler file: ${path} is a directory or a device`,
      });
    }
    yield* importing(path, pathToFileURL(absolute).href, importer);
  });

const loadModule = (cwd: string, name: string, importer: Importer) =>
  Effect.gen(function* () {
    const resolved = yield* Effect.try({
      try: () => createRequire(resolve(cwd, "noop.js")).resolve(name),
      catch: () => undefined,
    }).pipe(Effect.orElseSucceed(() => undefined));
    // ESM-only packages may not resolve through require(): let import() find them by name.
    const specifier = resolved === undefined ? name : pathToFileURL(resolved).href;
    yield* importing(name, specifier, importer).pipe(
      Effect.mapError((error) =>
        isNotFound(error.cause) && resolved === undefined
          ? new LoadError({
              reason: "ModuleNotFound",
              target: name,
              message: `Module not found: ${name} (resolved from ${cwd})`,
              cause: error.cause,
            })
          : error,
      ),
    );
  });

const isNotFound = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  (error.code === "ERR_MODULE_NOT_FOUND" || error.code === "MODULE_NOT_FOUND") &&
  "message" in error;

/**
 * Loads the handler files, then the modules, stopping at the first failure.
 *
 * @example
 * ```ts
 * yield* Loading.load({ paths: ["handlers.ts"], modules: [] })
 * kopf.getDefaultRegistry().changing.length // the handlers the file registered
 * ```
 */
export const load = (options: LoadOptions): Effect.Effect<void, LoadError> =>
  Effect.gen(function* () {
    const cwd = options.cwd ?? process.cwd();
    const importer = options.importer ?? defaultImporter;
    for (const path of options.paths) yield* loadPath(cwd, path, importer);
    for (const name of options.modules) yield* loadModule(cwd, name, importer);
  });
