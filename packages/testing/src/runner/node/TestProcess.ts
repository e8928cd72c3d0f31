/**
 * Where the test runner meets the test's own process (edge code, the one module of the runner
 * that reads `process`): the directory relative paths are resolved from. (An operator started by
 * command-line arguments gets no environment from the runner: see `internal/launching.ts`.)
 */

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
