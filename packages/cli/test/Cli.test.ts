/**
 * The `kopf` command: --help for every command (exit 0), usage errors (unknown flags and
 * commands, -n with -A, bad values; exit 2), a missing or broken handler file (exit 1 with a
 * message naming it), and `kopf run` end to end through KopfRunner against the in-process
 * emulator: handlers loaded from a file, the object handled, a graceful stop with exit code 0.
 * `kopf emulator` loads `@kopf/emulator` only when it runs, and fails clearly without it.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { assert, describe, it } from "@effect/vitest";
import { KopfRunner } from "@kopf/testing";
import { Cli } from "../src/index.ts";

const execFileAsync = promisify(execFile);
const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const examples = join(fixtures, "../../../../examples");

const invoke = async (argv: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let stdout = "";
  let stderr = "";
  const controller = new AbortController();
  const result = await Cli.main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    cwd: fixtures,
    signal: controller.signal,
    onReady: () => controller.abort(),
  });
  return { ...result, stdout, stderr };
};

describe("kopf --help", () => {
  it.each([
    [["--help"], ["Usage: kopf <command>", "kopf run", "kopf emulator", "kopf freeze", "kopf resume"]],
    [
      ["freeze", "--help"],
      ["--peering", "--lifetime", "--priority", "--id"],
    ],
    [
      ["resume", "--help"],
      ["--peering", "--id"],
    ],
    [
      ["run", "--help"],
      [
        "--namespace",
        "--all-namespaces",
        "--standalone",
        "--liveness",
        "--metrics",
        "--log-format",
        "KOPF_RUN_",
      ],
    ],
    [
      ["emulator", "--help"],
      ["--port", "--crd", "--state"],
    ],
  ])("%j prints the usage and exits 0", async (argv, words) => {
    const result = await invoke(argv);
    assert.strictEqual(result.exitCode, 0);
    for (const word of words) assert.include(result.stdout, word);
  });

  it("--version prints the version of the installed @kopf/cli and exits 0", async () => {
    const manifest = JSON.parse(readFileSync(join(fixtures, "../../package.json"), "utf8"));
    const result = await invoke(["--version"]);
    assert.strictEqual(result.exitCode, 0);
    assert.strictEqual(result.stdout.trim(), manifest.version);
  });
});

describe("usage errors", () => {
  it.each([
    [[], "Name a command"],
    [["jump"], "Unknown argument: jump"],
    [["run", "--no-such-flag", "h.ts"], "Unknown argument"],
    [["run", "-n", "ns1", "-A", "handlers.ts"], "Either --namespace or --all-namespaces"],
    [["run", "h.ts", "--emulator", "crd.yaml", "--context", "kind"], "Either --emulator or --context"],
    [["run", "--log-format", "xml", "handlers.ts"], "log-format"],
    [["run"], "Nothing to run"],
  ])("%j exits 2 naming the problem", async (argv, message) => {
    const result = await invoke(argv);
    assert.strictEqual(result.exitCode, 2);
    assert.include(result.stderr, message);
    assert.include(result.stderr, "kopf --help");
  });

  it("reads KOPF_RUN_* variables (and refuses -n with KOPF_RUN_ALL_NAMESPACES)", async () => {
    const result = await invoke(["run", "-n", "ns1", "handlers.ts"], { KOPF_RUN_ALL_NAMESPACES: "true" });
    assert.strictEqual(result.exitCode, 2);
  });
});

describe("handler files", () => {
  it("exits 1 naming a missing file", async () => {
    const result = await invoke(["run", "-A", "missing.ts"]);
    assert.strictEqual(result.exitCode, 1);
    assert.include(result.stderr, "Handler file not found: missing.ts");
  });

  it("exits 1 naming a file that throws on import", async () => {
    const result = await invoke(["run", "-A", "throwing.ts"]);
    assert.strictEqual(result.exitCode, 1);
    assert.include(result.stderr, "Failed to load throwing.ts: RangeError");
  });
});

describe("kopf run", () => {
  it("loads the handlers and handles objects until stopped (through KopfRunner)", async () => {
    // Each -n takes one value (as Kopf's): the file after the last one is still a handler file.
    const runner = await KopfRunner.start({
      args: ["run", "--log-format", "plain", "-n", "other", "-n", "default", "handlers.ts"],
      cli: Cli.main,
      cwd: fixtures,
    });
    await runner.apply(join(examples, "crd.yaml"));
    await runner.apply(join(examples, "obj.yaml"));
    const body = await runner.waitFor(
      KopfRunner.kopfExamples,
      "kopf-example-1",
      "default",
      (b) => b?.status?.createFn !== undefined,
    );
    assert.deepStrictEqual(body?.status?.createFn, { message: "hello" });
    await runner.stop();
    assert.strictEqual(runner.exitCode, 0);
    assert.include(runner.output, "[default/kopf-example-1] Handler 'createFn' succeeded.");
  });

  it("runs with its arguments only: the test's own KOPF_RUN_* variables do not reach it", async () => {
    // Read by the run, KOPF_RUN_ALL_NAMESPACES would refuse `-n` (exit code 2, as above).
    process.env.KOPF_RUN_ALL_NAMESPACES = "true";
    try {
      const runner = await KopfRunner.start({
        args: ["run", "-n", "default", "not-there.ts"],
        cli: Cli.main,
        cwd: fixtures,
        reraise: false,
      });
      await runner.stop();
      // The handler file is looked for only once the arguments were accepted.
      assert.strictEqual(runner.exitCode, 1);
      assert.include(String((runner.exception as Error).message), "Handler file not found: not-there.ts");
    } finally {
      delete process.env.KOPF_RUN_ALL_NAMESPACES;
    }
  });

  it("exposes a startup failure as the runner's exception and exit code 1", async () => {
    const runner = await KopfRunner.start({
      args: ["run", "-A", "missing.ts"],
      cli: Cli.main,
      cwd: fixtures,
      reraise: false,
    });
    await runner.stop();
    assert.strictEqual(runner.exitCode, 1);
    assert.include(String((runner.exception as Error).message), "missing.ts");
  });
});

describe("kopf emulator loads @kopf/emulator only when it runs", () => {
  const counting = () => {
    const loads = { count: 0 };
    const loadEmulator = () => {
      loads.count++;
      return import("@kopf/emulator");
    };
    return { loads, loadEmulator };
  };

  it.each([[["--help"]], [["run", "--help"]], [["freeze", "--help"]], [["jump"]]])(
    "%j does not load it",
    async (argv) => {
      const { loads, loadEmulator } = counting();
      await Cli.main(argv, { stdout: () => undefined, stderr: () => undefined, loadEmulator });
      assert.strictEqual(loads.count, 0);
    },
  );

  it("loads it once for `kopf emulator --help`", async () => {
    const { loads, loadEmulator } = counting();
    let stdout = "";
    const result = await Cli.main(["emulator", "--help"], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: () => undefined,
      loadEmulator,
    });
    assert.strictEqual(result.exitCode, 0);
    assert.strictEqual(loads.count, 1);
    assert.include(stdout, "--state");
  });

  it("exits 1 naming the package when it cannot be loaded", async () => {
    let stderr = "";
    const result = await Cli.main(["emulator", "--port", "0"], {
      stdout: () => undefined,
      stderr: (text) => {
        stderr += text;
      },
      loadEmulator: () => Promise.reject(new Error("Cannot find package '@kopf/emulator'")),
    });
    assert.strictEqual(result.exitCode, 1);
    assert.include(stderr, "kopf emulator needs the package @kopf/emulator");
    assert.include(stderr, "npm install");
  });

  it("runs `kopf run --help` in a process where @kopf/emulator cannot even be resolved", async () => {
    // A resolve hook refuses @kopf/emulator: a static import of it anywhere under @kopf/cli would
    // fail the import of the CLI itself.
    const script = `
      import { registerHooks } from "node:module";
      registerHooks({
        resolve(specifier, context, next) {
          if (specifier === "@kopf/emulator") throw new Error("refused to resolve @kopf/emulator");
          return next(specifier, context);
        },
      });
      const { Cli } = await import("@kopf/cli");
      const quiet = { stdout: () => undefined, stderr: () => undefined };
      const run = await Cli.main(["run", "--help"], quiet);
      let stderr = "";
      const emulator = await Cli.main(["emulator"], { ...quiet, stderr: (text) => { stderr += text; } });
      process.stdout.write(JSON.stringify({ run: run.exitCode, emulator: emulator.exitCode, stderr }));
    `;
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--conditions=@kopf/source", "--input-type=module", "-e", script],
      { cwd: join(fixtures, ".."), encoding: "utf8" },
    );
    const outcome = JSON.parse(stdout) as { run: number; emulator: number; stderr: string };
    assert.strictEqual(outcome.run, 0);
    assert.strictEqual(outcome.emulator, 1);
    assert.include(outcome.stderr, "refused to resolve @kopf/emulator");
  });
});
