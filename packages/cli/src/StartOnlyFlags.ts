/**
 * What only the start of a process can set for a `kopf run` operator, and the one restart that
 * sets it. V8 compiles hot functions on worker threads by default, and the C allocator keeps those
 * threads' working memory afterwards: compiled on the main thread instead
 * (`--no-concurrent-recompilation`), a burst's peak memory is lower for no more CPU per object
 * (docs/performance.md). V8 reads that flag only as it starts, and `NODE_OPTIONS` does not accept
 * it, so `kopf run` started without it replaces itself once, before anything else loads, with the
 * same Node.js, the flag, and the same command line and environment (`process.execve`: the same
 * process, so the same PID, streams and signals; a container's PID 1 stays PID 1).
 *
 * Nothing is restarted where that cannot be done or would take something from the user:
 * - a user's own choice of the flag (`--concurrent-recompilation` or its negation) wins;
 * - a debugger (`--inspect…`) would be attached to the process being replaced;
 * - where Node.js has no `process.execve` (on Windows) the operator runs on as started;
 * - `KOPF_HEAP_TUNING=off` leaves V8's defaults, as for the heap's tuning.
 */
import { mentions, startFlags } from "./internal/nodeFlags.ts";

/** The flag the restart adds. */
export const FLAG = "--no-concurrent-recompilation";

/** Node's options that attach a debugger (or name its port): such a process is not replaced. */
const DEBUGGER_FLAGS = ["--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port", "--debug-port"];

/** What the process was started with, and whether it can replace itself. */
export interface Started {
  /** Node's command line before the script (`process.execArgv`). */
  readonly execArgv: ReadonlyArray<string>;
  /** The script and its arguments (`process.argv` without the executable). */
  readonly args: ReadonlyArray<string>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether `process.execve` exists here. */
  readonly canReplace: boolean;
}

/** The command line to replace the process with (after the executable), and its environment. */
export interface Replacement {
  readonly args: ReadonlyArray<string>;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The replacement of a `kopf run` process, or `undefined` to run on as started.
 *
 * @example
 * ```ts
 * StartOnlyFlags.plan({ execArgv: [], args: ["kopf.js", "run", "h.js"], env: {}, canReplace: true })
 * // { args: ["--no-concurrent-recompilation", "kopf.js", "run", "h.js"], env: {} }
 * StartOnlyFlags.plan({ execArgv: ["--inspect"], args: ["kopf.js", "run"], env: {}, canReplace: true })
 * // undefined
 * ```
 */
export const plan = (started: Started): Replacement | undefined => {
  if (!started.canReplace || started.env.KOPF_HEAP_TUNING === "off") return undefined;
  const options = startFlags(started.execArgv, started.env.NODE_OPTIONS);
  if (mentions(options, ["--concurrent-recompilation", ...DEBUGGER_FLAGS])) return undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(started.env)) if (value !== undefined) env[name] = value;
  return { args: [FLAG, ...started.execArgv, ...started.args], env };
};

/**
 * Replaces this process as {@link plan} says (returning only if it does not, or if the
 * replacement fails, when the process runs on as started).
 *
 * @example
 * ```ts
 * StartOnlyFlags.apply(StartOnlyFlags.plan(StartOnlyFlags.started()))
 * ```
 */
export const apply = (replacement: Replacement | undefined): void => {
  if (replacement === undefined || typeof process.execve !== "function") return;
  try {
    process.execve(process.execPath, [process.execPath, ...replacement.args], replacement.env);
  } catch {
    // Not replaced (say, the executable is gone): the operator runs on without the flag.
  }
};

/** What this process was started with. */
export const started = (): Started => ({
  execArgv: process.execArgv,
  args: process.argv.slice(1),
  env: process.env,
  canReplace: typeof process.execve === "function",
});
