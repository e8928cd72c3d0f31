/**
 * The `kopf` command: --help for every command (exit 0), usage errors (unknown flags and
 * commands, -n with -A, bad values; exit 2), a missing or broken handler file (exit 1 with a
 * message naming it), and `kopf run` end to end through KopfRunner against the in-process
 * emulator: handlers loaded from a file, the object handled, a graceful stop with exit code 0.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, describe, it } from "@effect/vitest";
import { KopfRunner } from "@kopf/testing";
import { Cli } from "../src/index.ts";

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
});

describe("usage errors", () => {
  it.each([
    [[], "Name a command"],
    [["jump"], "Unknown argument: jump"],
    [["run", "--no-such-flag", "h.ts"], "Unknown argument"],
    [["run", "-n", "ns1", "-A", "handlers.ts"], "Either --namespace or --all-namespaces"],
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
