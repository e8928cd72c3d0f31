// `npm run pack`: builds every package (tsc -b, then the bundled `kopf` executable of
// scripts/bundle-cli.ts), then packs each public one (every package under
// packages/ that is not private) with pnpm into .packages/, one tarball each, and prints their
// paths. pnpm writes the published manifest: workspace versions become the real ones and
// `publishConfig.exports` (dist only) replaces the workspace's `exports` with its `@kopf/source`
// condition. The repository's LICENSE is copied into each package for the time of its packing, so
// every tarball carries the licence text its `license` field names. The packed manifests are
// checked for leftovers of the workspace, and the tarballs for the licence, before printing.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const destination = join(root, ".packages");

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
}

const publicPackages = readdirSync(join(root, "packages"))
  .map((entry) => join(root, "packages", entry))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .filter(
    (dir) => (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest).private !== true,
  );

execFileSync("tsc", ["-b"], { cwd: root, stdio: "inherit" });
execFileSync(process.execPath, [join(root, "scripts/bundle-cli.ts")], { cwd: root, stdio: "inherit" });
rmSync(destination, { recursive: true, force: true });
mkdirSync(destination, { recursive: true });

const problems: Array<string> = [];
const tarballs = publicPackages.map((dir) => {
  const licence = join(dir, "LICENSE");
  const ownLicence = existsSync(licence);
  if (!ownLicence) copyFileSync(join(root, "LICENSE"), licence);
  let output: string;
  try {
    output = execFileSync("pnpm", ["pack", "--pack-destination", destination, "--json"], {
      cwd: dir,
      encoding: "utf8",
    });
  } finally {
    if (!ownLicence) rmSync(licence, { force: true });
  }
  const { filename } = JSON.parse(output) as { filename: string };
  const contents = execFileSync("tar", ["-tzf", filename], { encoding: "utf8" }).split("\n");
  if (!contents.includes("package/LICENSE")) problems.push(`${filename}: no LICENSE in the tarball`);
  const manifest = execFileSync("tar", ["-xzOf", filename, "package/package.json"], { encoding: "utf8" });
  for (const leftover of ["workspace:", "@kopf/source"]) {
    if (manifest.includes(leftover))
      problems.push(`${filename}: the packed package.json still has ${leftover}`);
  }
  return filename;
});

if (problems.length > 0) {
  for (const problem of problems) console.error(`pack: ${problem}`);
  process.exit(1);
}
for (const tarball of tarballs) console.log(tarball);
