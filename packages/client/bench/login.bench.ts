// Measures what the first login costs a fresh process (not a timed test): the time to import
// `@kopf/client` and run the kubeconfig login once, and the process's RSS afterwards, for a token
// and an exec-plugin kubeconfig (wall time and the process's CPU time, which a loaded machine
// distorts less). Each round is a new Node process, so module loading is counted.
// Prints the medians of BENCH_ROUNDS (default 5) rounds.
//
//   node --conditions=@kopf/source packages/client/bench/login.bench.ts
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "kopf-login-bench-"));

const kubeconfig = (user: string) => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
users:
- name: u
  user:
${user}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`;

const plugin = join(dir, "plugin.sh");
writeFileSync(
  plugin,
  `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'\n`,
);
chmodSync(plugin, 0o755);
const variants = {
  token: kubeconfig("    token: abc"),
  exec: kubeconfig(
    `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      interactiveMode: Never`,
  ),
};

// The child: import, log in once, report milliseconds since its start and RSS in MiB.
const child = `
const started = performance.now();
const Effect = await import("effect/Effect");
const { KubeConfigLogin } = await import("@kopf/client");
await Effect.runPromise(KubeConfigLogin.make({ paths: process.argv[1] }));
const ms = performance.now() - started;
const cpu = process.cpuUsage();
console.log(JSON.stringify({ ms, cpu: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss / 2 ** 20 }));
`;

const median = (values: ReadonlyArray<number>) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const [name, text] of Object.entries(variants)) {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, text);
  const runs = Array.from({ length: ROUNDS }, () => {
    const out = execFileSync(
      process.execPath,
      ["--conditions=@kopf/source", "--input-type=module", "-e", child, path],
      { cwd: join(import.meta.dirname, ".."), encoding: "utf-8" },
    );
    return JSON.parse(out.trim().split("\n").at(-1)!) as { ms: number; cpu: number; rss: number };
  });
  console.log(
    `${name.padEnd(6)} import+login ${median(runs.map((r) => r.ms)).toFixed(0)} ms (CPU ${median(runs.map((r) => r.cpu)).toFixed(0)} ms), RSS ${median(runs.map((r) => r.rss)).toFixed(0)} MiB (median of ${ROUNDS})`,
  );
}
rmSync(dir, { recursive: true, force: true });
