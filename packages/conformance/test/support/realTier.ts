// Global setup of the real-cluster tier: the run's .reports/real-e2e-<pid>.jsonl (one line per
// end-to-end file, written by realCluster.ts in the workers, children of this process) and, at the end, prints what the
// end-to-end files did on the real API server (or what was swept from a shared cluster), and what
// the least-privilege proof counted (.reports/rbac.json, written by its test file), for the CI log.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { repositoryRoot } from "../../src/Cluster.ts";

const report = join(repositoryRoot, ".reports", `real-e2e-${process.pid}.jsonl`);
const rbac = join(repositoryRoot, ".reports", "rbac.json");

/** What the least-privilege proof counted for one scope. */
interface RbacCounts {
  readonly requestsAudited?: number;
  readonly forbidden?: number;
  readonly rulesChecked?: number;
  readonly rulesNecessary?: number;
}

interface Line {
  readonly file: string;
  readonly version: string;
  /** On a shared cluster (kubeconfig:PATH): what was deleted after the file. */
  readonly shared?: boolean;
  readonly swept?: Readonly<Record<string, number>>;
  /** On a fresh control plane: the audited requests. */
  readonly requests?: number;
  readonly writes?: number;
  readonly watches?: number;
  readonly failures?: number;
}

export async function setup(): Promise<void> {
  await rm(report, { force: true });
  await rm(rbac, { force: true });
}

const printRbac = async () => {
  const text = await readFile(rbac, "utf8").catch(() => undefined);
  if (text === undefined) return;
  for (const [scope, counts] of Object.entries(JSON.parse(text) as Record<string, RbacCounts>)) {
    console.log(
      `least privilege (${scope}) on a real kube-apiserver: ${counts.requestsAudited ?? "?"} requests of the ` +
        `operator's service account audited, ${counts.forbidden ?? "?"} forbidden; ` +
        `${counts.rulesChecked ?? "?"} generated rules checked, ${counts.rulesNecessary ?? "?"} found necessary`,
    );
  }
};

export async function teardown(): Promise<void> {
  await printRbac();
  const text = await readFile(report, "utf8").catch(() => "");
  const all = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Line);
  const shared = all.filter((line) => line.shared === true);
  if (shared.length > 0) {
    const swept = shared.reduce(
      (total, line) => total + Object.values(line.swept ?? {}).reduce((a, b) => a + b, 0),
      0,
    );
    const versions = [...new Set(shared.map((line) => line.version))].join(", ");
    console.log(
      `end-to-end on a shared cluster (${versions}): ${shared.length} files, one after another; ` +
        `${swept} objects they created deleted after them`,
    );
  }
  const lines = all.filter((line) => line.shared !== true);
  if (lines.length === 0) return;
  const sum = (key: "requests" | "writes" | "watches" | "failures") =>
    lines.reduce((total, line) => total + (line[key] ?? 0), 0);
  const versions = [...new Set(lines.map((line) => line.version))].join(", ");
  console.log(
    `end-to-end on a real kube-apiserver ${versions}: ${lines.length} files, each on a fresh control plane; ` +
      `${sum("requests")} requests audited (${sum("writes")} writes, ${sum("watches")} watches, ` +
      `${sum("failures")} answered >= 400, e.g. expected conflicts and not-founds)`,
  );
}
