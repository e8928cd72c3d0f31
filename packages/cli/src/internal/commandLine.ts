/**
 * The `kopf` command line on yargs: its commands, each with the options its own module adds, and
 * the parse that gives the arguments, the usage error or the text `--help` prints.
 */
import type * as Emulator from "@kopf/emulator";
import yargs from "yargs";
import * as ManifestsCommand from "../ManifestsCommand.ts";
import * as PeeringCommands from "../PeeringCommands.ts";
import * as ResourceCommands from "../ResourceCommands.ts";
import * as RunArgs from "../RunArgs.ts";

/** What `kopf emulator` needs of `@kopf/emulator`: its command line and its program. */
export type EmulatorModule = Pick<typeof Emulator, "EmulatorCommand" | "EmulatorMain">;

/** The command line; the `emulator` command's options come from the emulator once it is loaded. */
const parser = (emulator: EmulatorModule | undefined) =>
  yargs()
    .scriptName("kopf")
    .usage("Usage: $0 <command> [options]")
    .command(
      "run [paths..]",
      "Start an operator process and handle all the custom objects.",
      RunArgs.configure,
    )
    .command("emulator", "Run the Kubernetes API emulator (HTTPS) until stopped.", (argv) =>
      emulator === undefined ? argv : emulator.EmulatorCommand.configure(argv),
    )
    .command("freeze", "Freeze the resource handling in the cluster (pause peered operators).", (argv) =>
      PeeringCommands.configure(argv, "freeze"),
    )
    .command("resume", "Resume the resource handling in the cluster.", (argv) =>
      PeeringCommands.configure(argv, "resume"),
    )
    .command("crd [paths..]", "Print the CRDs of the resources the files declare (kopf.resource).", (argv) =>
      ResourceCommands.configure(argv, "crd"),
    )
    .command(
      "manifests [paths..]",
      "Print the YAML of what the operator needs in a cluster: RBAC, Deployment, CRDs.",
      ManifestsCommand.configure,
    )
    .command("types <file>", "Write TypeScript Schemas and resources from a YAML file of CRDs.", (argv) =>
      ResourceCommands.configure(argv, "types"),
    )
    .demandCommand(
      1,
      "Name a command: kopf run ..., kopf emulator ..., kopf freeze ..., kopf resume ..., kopf crd ..., kopf manifests ... or kopf types ...",
    )
    .strict()
    .help()
    .alias("help", "h")
    // @kopf/cli's own version (a test keeps them equal).
    .version("0.1.0")
    .exitProcess(false)
    .wrap(100);

/** What parsing gave: the usage error, if any; the arguments; the text yargs printed (`--help`). */
export interface Parsed {
  readonly error: Error | undefined;
  readonly args: Record<string, unknown>;
  readonly output: string;
}

/**
 * Parses `argv` (the words after `kopf`) without exiting the process, with the emulator's options
 * when `emulator` is loaded.
 *
 * @example
 * const { error, args, output } = await parse(["run", "--help"], undefined)
 */
export const parse = (argv: ReadonlyArray<string>, emulator: EmulatorModule | undefined): Promise<Parsed> =>
  new Promise((resolve) => {
    parser(emulator).parse([...argv], {}, (error, args, output) =>
      resolve({ error: error ?? undefined, args: args as Record<string, unknown>, output }),
    );
  });
