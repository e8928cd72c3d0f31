// The README's performance table from a side-by-side report: prints the Markdown table of the
// rows of .reports/bench/peer.json (or the file given), as peer.bench.ts writes it next to the
// report (peer.md), so that the README's table can be made again from any kept report.
//
//   node --conditions=@kopf/source packages/compat/bench/readme-table.ts [peer.json]
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as Report from "./internal/report.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const path = process.argv[2] ?? join(root, ".reports/bench/peer.json");
const report = JSON.parse(readFileSync(path, "utf8")) as {
  readonly rows: ReadonlyArray<Report.Row>;
  readonly soak: { readonly cycles: number; readonly objects: number };
};
// Reports written before the floor operator was measured have no floor figure in their rows.
const rows = report.rows.map((row) => ({ ...row, floor: row.floor ?? null }));
console.log(Report.markdown(rows, report.soak));
