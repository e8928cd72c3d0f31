/**
 * A project made by `npm create kopf` (the create-kopf executable, run as a process), inside this
 * package's directory so that its `import "kopf"` resolves to the workspace's kopf; and the
 * command line of its `manifests` script, as `npm run manifests -- ...` runs it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const createKopf = join(here, "../../../create-kopf/bin/create-kopf.js");

/** A scaffolded project; `remove()` deletes it. */
export interface Scaffold {
  readonly root: string;
  /** The `manifests` script's arguments after `kopf`, then `extra` (what `npm run manifests -- extra` passes). */
  readonly manifests: (...extra: ReadonlyArray<string>) => ReadonlyArray<string>;
  readonly remove: () => void;
}

/**
 * Scaffolds `name` with the given create-kopf options.
 *
 * @example
 * const project = scaffold("my-op", ["--namespace", "team-a"])
 * await Cli.main(project.manifests("--output", "manifests/"), { cwd: project.root, ... })
 */
export const scaffold = (name: string, options: ReadonlyArray<string> = []): Scaffold => {
  const parent = mkdtempSync(join(here, "../../.scaffold-"));
  execFileSync(process.execPath, [createKopf, name, ...options], { cwd: parent, stdio: "pipe" });
  const root = join(parent, name);
  const scripts = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;
  const script = scripts.manifests ?? "";
  const [command, ...args] = script.split(" ");
  if (command !== "kopf") throw new Error(`the manifests script does not run kopf: ${script}`);
  return {
    root,
    manifests: (...extra) => [...args, ...extra],
    remove: () => rmSync(parent, { recursive: true, force: true }),
  };
};
