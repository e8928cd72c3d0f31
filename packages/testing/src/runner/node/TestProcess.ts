/**
 * Where the test runner meets the test's own process (edge code, the one module of the runner
 * that reads `process` or `node:path`): the directory relative paths are resolved from, and their
 * resolving. (An operator started by command-line arguments gets no environment from the runner:
 * see `internal/launching.ts`.)
 */
import { isAbsolute, resolve } from "node:path";

/**
 * The test process's working directory, which relative paths are resolved from when the runner
 * was given none.
 *
 * @example
 * ```ts
 * resolve(options.cwd ?? TestProcess.workingDirectory(), "crd.yaml")
 * ```
 */
export const workingDirectory = (): string => process.cwd();

/**
 * A path as given to the runner (a YAML file to apply): absolute as it is, else resolved from
 * `cwd`, or from the test process's working directory without one.
 *
 * @example
 * ```ts
 * TestProcess.resolvePath("crd.yaml", "/repo/examples") // "/repo/examples/crd.yaml"
 * ```
 */
export const resolvePath = (path: string, cwd: string | undefined): string =>
  isAbsolute(path) ? path : resolve(cwd ?? workingDirectory(), path);
