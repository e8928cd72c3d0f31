/**
 * Running the `kopf` command in-process with its output captured; each load of a handler file
 * imports it afresh (as each `kopf` process does), not from the module cache.
 */
import { Cli } from "../../src/index.ts";

let loads = 0;
const importer = (specifier: string) => import(`${specifier}?load=${++loads}`);

/**
 * Runs `kopf` with `argv` in `cwd` (and settings overrides, as an embedding application gives
 * them); answers its exit code, failure, stdout and stderr.
 *
 * @example
 * const { exitCode, stdout } = await invoke(["crd", "typed.ts"], fixtures)
 */
export const invoke = async (
  argv: ReadonlyArray<string>,
  cwd: string,
  settings?: Cli.CliIo["settings"] | undefined,
) => {
  let stdout = "";
  let stderr = "";
  const result = await Cli.main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd,
    importer,
    settings,
  });
  return { ...result, stdout, stderr };
};
