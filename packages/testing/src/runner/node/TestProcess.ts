/**
 * Where the test runner meets the test's own process (edge code, the one module of the runner
 * that reads `process`): the environment an operator started by command-line arguments sees,
 * and the directory relative paths are resolved from.
 */

/**
 * The test process's environment as a `kopf run` started by the runner sees it: without the
 * test's own `KOPF_RUN_*` variables, which would otherwise leak into every run (only the
 * arguments count).
 *
 * @example
 * ```ts
 * Cli.main(["run", "handlers.ts"], { ...io, env: TestProcess.runEnvironment() })
 * ```
 */
export const runEnvironment = (): Readonly<Record<string, string | undefined>> =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("KOPF_RUN_")));

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
