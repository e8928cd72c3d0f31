/**
 * `npm create kopf@latest DIR [--group G] [--kind K] [--plural P] [--clusterwide | --namespace NS]`:
 * parses the command line, validates it, refuses a directory that already has files, writes the
 * project and says what to run next. Exit codes: 0 done (or help), 2 bad usage, 1 the files could
 * not be written. Edge code: the file system.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import * as Options from "./Options.ts";
import * as Scaffold from "./Scaffold.ts";
import { TOOLS } from "./templates/Project.ts";

/** Where the command writes. */
export interface CreateIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The directory a relative project directory is resolved from. */
  readonly cwd: string;
}

const USAGE = `Usage: npm create kopf@latest <directory> -- [options]

Creates a Kopf for TypeScript operator project in <directory> (its name is the package's name).

Options:
  --group <group>       the custom resource's API group (default: ${Options.DEFAULTS.group})
  --kind <Kind>         the custom resource's kind (default: ${Options.DEFAULTS.kind})
  --plural <plural>     its plural resource name (default: the kind's plural, lower-case)
  --namespace <ns>      the namespace the operator serves (default: ${Options.DEFAULTS.namespace})
  --clusterwide         serve every namespace instead (kopf run --all-namespaces)
  -h, --help            show this help
`;

const ownVersion = async (): Promise<string> => {
  const manifest = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf-8")) as {
    version: string;
  };
  return manifest.version;
};

const isEmptyOrMissing = async (path: string): Promise<boolean> =>
  readdir(path).then(
    (entries) => entries.length === 0,
    (error: NodeJS.ErrnoException) => error.code === "ENOENT",
  );

/**
 * Runs the command; answers its exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await create(process.argv.slice(2), { stdout, stderr, cwd: process.cwd() })
 * ```
 */
export const create = async (argv: ReadonlyArray<string>, io: CreateIo): Promise<number> => {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help === true) {
    io.stdout(USAGE);
    return 0;
  }
  const validated = Options.validate({ ...parsed.values, directory: parsed.positionals[0] });
  if (!validated.ok) {
    io.stderr(`${validated.error.message}\n\n${USAGE}`);
    return 2;
  }
  const options = validated.options;
  const target = resolve(io.cwd, options.directory);
  if (!(await isEmptyOrMissing(target))) {
    io.stderr(`${target} already exists and is not empty: name a new directory.\n`);
    return 2;
  }
  try {
    const versions = { kopf: await ownVersion(), ...TOOLS };
    for (const file of Scaffold.files(options, versions)) {
      const path = join(target, file.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content, { flag: "wx" });
    }
  } catch (error) {
    io.stderr(
      `Could not write the project into ${target}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  io.stdout(
    [
      `Created ${options.name}: an operator for ${options.kind} (${options.plural}.${options.group}).`,
      "",
      `  cd ${options.directory}`,
      "  npm install",
      "  npm test        # the handlers on the Kubernetes API emulator",
      "  npm run dev     # the operator against an embedded emulator, restarted on changes",
      "",
    ].join("\n"),
  );
  return 0;
};

const parse = (argv: ReadonlyArray<string>) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      group: { type: "string" },
      kind: { type: "string" },
      plural: { type: "string" },
      namespace: { type: "string" },
      clusterwide: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
