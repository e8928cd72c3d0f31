// Command-line front of the layering checker: reads layers.json, docs/architecture.md and every
// TypeScript file under packages/ and examples/, prints violations and exits non-zero on any.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  checkCoverage,
  checkFiles,
  checkTable,
  type LayerTable,
  type SourceFile,
} from "./layers/checkLayers.ts";

const root = join(import.meta.dirname, "..");
const table = JSON.parse(readFileSync(join(root, "layers.json"), "utf8")) as LayerTable;
const doc = readFileSync(join(root, "docs/architecture.md"), "utf8");

const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    if (entry === "node_modules" || entry === "dist") return [];
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : /\.(ts|mts|tsx)$/.test(entry) ? [path] : [];
  });

const packageDirs = readdirSync(join(root, "packages"))
  .filter((entry) => statSync(join(root, "packages", entry)).isDirectory())
  .map((entry) => `packages/${entry}`);
const files: Array<SourceFile> = packageDirs
  .flatMap((dir) => walk(join(root, dir)))
  .map((path) => ({ path: relative(root, path).split("\\").join("/"), text: readFileSync(path, "utf8") }));

const violations = [
  ...checkTable(table),
  ...checkCoverage(table, packageDirs, doc),
  ...checkFiles(table, files),
];
for (const v of violations) console.error(`layers: ${v.file}: ${v.message}`);
if (violations.length > 0) {
  console.error(`layers: ${violations.length} violation(s)`);
  process.exit(1);
}
console.log(`layers: ${files.length} files in ${packageDirs.length} packages follow layers.json`);
