/**
 * Python Kopf for the compatibility suite: a project-local virtual environment
 * (`.cache/compat-venv`, created with `python3 -m venv`) with the pinned Kopf from PyPI, and Kopf
 * operators run from it as child processes (`python -m kopf run ...`) against a kubeconfig —
 * Kopf's own `login_with_kubeconfig` fallback, since no Kubernetes client library is installed.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The Kopf release the suite compares with (the latest 1.x on PyPI when it was written). */
export const KOPF_VERSION = "1.45.2";

/** Where the virtual environment lives, under the repository's root. */
export const venvDir = (root: string): string => join(root, ".cache", "compat-venv");

const pythonOf = (root: string): string => join(venvDir(root), "bin", "python");

const installedVersion = async (python: string): Promise<string | undefined> => {
  try {
    const { stdout } = await run(python, ["-c", "import importlib.metadata as m; print(m.version('kopf'))"]);
    return stdout.trim();
  } catch {
    return undefined;
  }
};

/**
 * Makes sure the virtual environment exists with the pinned Kopf; answers its Python. The first
 * run installs from PyPI (tens of seconds); later runs only check the version.
 *
 * @example
 * const python = await PythonKopf.ensure("/work/main")
 */
export const ensure = async (root: string, python3 = process.env.PYTHON ?? "python3"): Promise<string> => {
  const python = pythonOf(root);
  if (!existsSync(python)) {
    try {
      await run(python3, ["-m", "venv", venvDir(root)]);
    } catch (error) {
      throw new Error(
        `Cannot create the virtual environment for Python Kopf with ${python3} -m venv (is Python 3 with venv installed?): ${String(error)}`,
      );
    }
  }
  if ((await installedVersion(python)) !== KOPF_VERSION) {
    await run(
      python,
      ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `kopf==${KOPF_VERSION}`],
      {
        maxBuffer: 16 * 2 ** 20,
      },
    );
    const version = await installedVersion(python);
    if (version !== KOPF_VERSION)
      throw new Error(`pip installed kopf ${version ?? "nothing"}, not ${KOPF_VERSION}`);
  }
  return python;
};

/** A running Python Kopf operator. */
export interface PythonOperator {
  /** Everything it wrote so far (its log goes to stderr). */
  readonly output: () => string;
  /** Waits until the output contains `text`. */
  readonly waitForOutput: (text: string, timeoutMs?: number) => Promise<void>;
  /** Stops it with SIGTERM (Kopf's graceful stop); answers its exit code. */
  readonly stop: () => Promise<number | null>;
}

/** How to run a Python Kopf operator. */
export interface StartOptions {
  readonly python: string;
  readonly handlers: string;
  readonly namespace: string;
  readonly kubeconfig: string;
  /** Peering flags instead of `--standalone` (e.g. `["--peering", "example", "--priority", "200"]`). */
  readonly peering?: ReadonlyArray<string> | undefined;
}

/**
 * Starts `kopf run --standalone --verbose -n <namespace> <handlers>` (or with the given peering
 * flags instead of `--standalone`).
 *
 * @example
 * const kopf = PythonKopf.start({ python, handlers: "fixtures/handlers.py", namespace: "compat", kubeconfig })
 * await kopf.waitForOutput("Handler 'first' succeeded.")
 * await kopf.stop()
 */
export const start = (options: StartOptions): PythonOperator => {
  let text = "";
  const child: ChildProcess = spawn(
    options.python,
    [
      "-m",
      "kopf",
      "run",
      ...(options.peering ?? ["--standalone"]),
      "--verbose",
      "-n",
      options.namespace,
      options.handlers,
    ],
    {
      env: { ...process.env, KUBECONFIG: options.kubeconfig, PYTHONUNBUFFERED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const waitForOutput = async (needle: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!text.includes(needle)) {
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`Python Kopf did not say ${JSON.stringify(needle)}; it said:\n${text}`);
      }
      await new Promise((done) => setTimeout(done, 50));
    }
  };
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { output: () => text, waitForOutput, stop };
};
