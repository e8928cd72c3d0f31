// The processes a side-by-side run needs: an emulator (`kopf emulator`, HTTPS) and one operator,
// either this port (`kopf run`) or Python Kopf (`python -m kopf run`), with their log lines
// counted as they arrive ("Creation is processed", "Deletion is processed"), which both print at
// the info level in the same words. With BENCH_LOG_DIR set, every process's whole output is also
// written there (one file per process), for a closer look at a run that failed.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as CompileTrace from "./compileTrace.ts";

/** A child process whose output is scanned for progress lines. */
export interface Child {
  readonly pid: number;
  readonly child: ChildProcess;
  /** How many times each watched phrase has appeared so far. */
  readonly count: (phrase: Phrase) => number;
  /** Everything printed so far (cut to the last 64 KiB). */
  readonly tail: () => string;
  /** The compiles it reported so far (with `--trace-opt`; none without). */
  readonly compiles: () => CompileTrace.CompileTotals;
  /** Waits until `phrase` has appeared `n` times; fails after `timeoutMs` or if the process exits. */
  readonly waitFor: (phrase: Phrase, n: number, timeoutMs: number) => Promise<void>;
  /** Stops it (SIGTERM, then SIGKILL after 20 s). */
  readonly stop: () => Promise<void>;
}

/** The phrases counted. */
export type Phrase = "created" | "deleted" | "ready";

const PHRASES: Record<Phrase, RegExp> = {
  created: /Creation is processed/g,
  deleted: /Deletion is processed/g,
  ready: /kubeconfig written/g,
};

const PHRASE_NAMES = Object.keys(PHRASES) as ReadonlyArray<Phrase>;

const watch = (child: ChildProcess, what: string): Child => {
  const counts: Record<Phrase, number> = { created: 0, deleted: 0, ready: 0 };
  let tail = "";
  let compiles = CompileTrace.NONE;
  const logDir = process.env.BENCH_LOG_DIR;
  if (logDir !== undefined) mkdirSync(logDir, { recursive: true });
  const logFile =
    logDir === undefined ? undefined : join(logDir, `${what.replace(/\W+/g, "-")}-${child.pid}.log`);
  // One reader per stream, each with its own unfinished last line: stdout's lines (V8's traces)
  // and stderr's (the log) arrive interleaved, and a line cut between two chunks of one stream
  // must not be joined to the other's. Decoded per stream too, so no character is cut in two.
  const reader = () => {
    let carry = "";
    return (chunk: string) => {
      if (logFile !== undefined) appendFileSync(logFile, chunk);
      const text = carry + chunk;
      const cut = text.lastIndexOf("\n");
      const complete = cut < 0 ? "" : text.slice(0, cut + 1);
      carry = cut < 0 ? text : text.slice(cut + 1);
      for (const phrase of PHRASE_NAMES) {
        counts[phrase] += complete.match(PHRASES[phrase])?.length ?? 0;
      }
      tail = (tail + complete).slice(-65536);
      compiles = CompileTrace.add(compiles, complete);
    };
  };
  child.stdout?.setEncoding("utf8").on("data", reader());
  child.stderr?.setEncoding("utf8").on("data", reader());
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const waitFor = async (phrase: Phrase, n: number, timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (counts[phrase] < n) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${what} exited (${child.exitCode ?? child.signalCode}); it said:\n${tail.slice(-4000)}`,
        );
      }
      if (performance.now() > deadline) {
        throw new Error(
          `${what}: ${counts[phrase]} of ${n} "${phrase}" after ${timeoutMs} ms:\n${tail.slice(-4000)}`,
        );
      }
      await new Promise((done) => setTimeout(done, 5));
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(timer);
  };
  if (child.pid === undefined) throw new Error(`${what} did not start`);
  return {
    pid: child.pid,
    child,
    count: (p) => counts[p],
    tail: () => tail,
    compiles: () => compiles,
    waitFor,
    stop,
  };
};

/** Starts `kopf emulator` with the examples' CRD; resolves once its kubeconfig is written. */
export const startEmulator = async (root: string, kubeconfig: string): Promise<Child> => {
  const child = spawn(
    process.execPath,
    [
      join(root, "packages/cli/bin/kopf.js"),
      "emulator",
      "--kubeconfig",
      kubeconfig,
      "--crd",
      join(root, "examples/crd.yaml"),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const emulator = watch(child, "the emulator");
  await emulator.waitFor("ready", 1, 60_000);
  return emulator;
};

/** Node.js options written as one line (space-separated), as the benchmarks' settings take them. */
export const nodeArgsOf = (text: string): ReadonlyArray<string> =>
  text.split(" ").filter((arg) => arg !== "");

/**
 * Node.js options for this port's operator alone (BENCH_OURS_NODE_ARGS), put before its entry
 * module: to see what a V8 or Node.js flag would change in the figures.
 */
export const ourNodeArgs = (): ReadonlyArray<string> => nodeArgsOf(process.env.BENCH_OURS_NODE_ARGS ?? "");

/**
 * Our `kopf` as an installed operator runs it: the bundle `pnpm build` makes
 * (packages/cli/dist/bundle, what `bin/kopf.js` runs under node_modules). BENCH_OPERATOR=modules
 * runs the packages' unbundled builds instead (packages/cli/dist/main.js, each workspace package
 * resolved to its dist/), BENCH_OPERATOR=source the TypeScript sources of the checkout (type
 * stripping at start, as `packages/cli/bin/kopf.js` does there).
 */
const ourCli = (root: string, cli: string | undefined): string => {
  if (cli !== undefined) return cli;
  switch (process.env.BENCH_OPERATOR) {
    case "source":
      return join(root, "packages/cli/bin/kopf.js");
    case "modules":
      return join(root, "packages/cli/dist/main.js");
    default:
      return join(root, "packages/cli/dist/bundle/main.js");
  }
};

/**
 * The floor operator's entry module (floor/operator.ts): started as `ours` is, with this entry
 * module and no Node.js options.
 */
export const FLOOR_OPERATOR = join(dirname(fileURLToPath(import.meta.url)), "..", "floor", "operator.ts");

/** Which operator. */
export type Peer = "ours" | "kopf";

/** Starts an operator serving one namespace, standalone, at the default (info) log level. */
export const startOperator = (options: {
  readonly peer: Peer;
  readonly root: string;
  readonly python: string | undefined;
  readonly handlers: string;
  readonly namespace: string;
  readonly kubeconfig: string;
  /** This port's entry module, instead of the one BENCH_OPERATOR names. */
  readonly cli?: string;
  /** Node.js options before this port's entry module, instead of BENCH_OURS_NODE_ARGS. */
  readonly nodeArgs?: ReadonlyArray<string>;
}): Child => {
  const env = { ...process.env, KUBECONFIG: options.kubeconfig, PYTHONUNBUFFERED: "1" };
  const args = ["run", "--standalone", "-n", options.namespace];
  const child =
    options.peer === "ours"
      ? spawn(
          process.execPath,
          [
            ...(options.nodeArgs ?? ourNodeArgs()),
            ourCli(options.root, options.cli),
            ...args,
            `${options.handlers}.js`,
          ],
          {
            env,
            stdio: ["ignore", "pipe", "pipe"],
          },
        )
      : spawn(options.python ?? "python3", ["-m", "kopf", ...args, `${options.handlers}.py`], {
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
  return watch(child, options.peer === "ours" ? "our operator" : "Python Kopf");
};
