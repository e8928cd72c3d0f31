// The manifests of the least-privilege proof's operator, as a user gets them: `kopf manifests`
// run as a process on the handler file (so the handler module is not imported into the test's
// own process before `kopf run` imports it there), its YAML parsed into objects.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";

/** What to derive the manifests from. */
export interface Options {
  readonly handlers: string;
  /** The scope options: `["-n", NAMESPACE]`, or `["-A", "--operator-namespace", NAMESPACE]`. */
  readonly scope: ReadonlyArray<string>;
  /** The name of the ServiceAccount, roles and bindings. */
  readonly name: string;
  /** CRD files of the served custom resources. */
  readonly crds: ReadonlyArray<string>;
  /** The repository's root. */
  readonly root: string;
}

/** `kopf manifests HANDLERS SCOPE --name NAME --crd …`, as objects (rejects with its stderr). */
export const generate = async (options: Options): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const bin = join(options.root, "packages/cli/bin/kopf.js");
  const args = [
    "manifests",
    options.handlers,
    ...options.scope,
    ...["--name", options.name],
    ...options.crds.flatMap((crd) => ["--crd", crd]),
  ];
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd: options.root });
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as unknown)
    .filter((object): object is Record<string, unknown> => typeof object === "object" && object !== null);
};
