/**
 * The `create-kopf` command: writes the project into a new or empty directory, refuses one with
 * files (changing nothing in it), and exits 2 naming a bad option before writing anything.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { create } from "../src/Create.ts";

const run = async (argv: ReadonlyArray<string>, cwd: string) => {
  let stdout = "";
  let stderr = "";
  const code = await create(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd,
  });
  return { code, stdout, stderr };
};

describe("create", () => {
  it("writes the project and says what to run next", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "create-kopf-"));
    const result = await run(["my-op", "--group", "acme.io", "--kind", "Database", "--clusterwide"], cwd);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("cd my-op");
    expect(readFileSync(join(cwd, "my-op/crd.yaml"), "utf-8")).toContain("databases.acme.io");
    const manifest = JSON.parse(readFileSync(join(cwd, "my-op/package.json"), "utf-8")) as {
      name: string;
      dependencies: Record<string, string>;
    };
    const own = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf-8")) as {
      version: string;
    };
    expect(manifest.name).toBe("my-op");
    expect(manifest.dependencies.kopf).toBe(`^${own.version}`);
    expect(existsSync(join(cwd, "my-op/test/handlers.test.ts"))).toBe(true);
  });

  it("refuses a directory with files and leaves them alone", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "create-kopf-"));
    mkdirSync(join(cwd, "busy"));
    writeFileSync(join(cwd, "busy/package.json"), "{}");
    const result = await run(["busy"], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("already exists and is not empty");
    expect(readdirSync(join(cwd, "busy"))).toEqual(["package.json"]);
    expect(readFileSync(join(cwd, "busy/package.json"), "utf-8")).toBe("{}");
  });

  it.each([
    [["my-op", "--kind", "database"], "--kind 'database' is not a kind"],
    [["my-op", "--no-such-option"], "no-such-option"],
    [[], "Name the project's directory"],
  ])("%j exits 2 naming the problem and writes nothing", async (argv, message) => {
    const cwd = mkdtempSync(join(tmpdir(), "create-kopf-"));
    const result = await run(argv, cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("prints its help", async () => {
    const result = await run(["--help"], mkdtempSync(join(tmpdir(), "create-kopf-")));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("npm create kopf@latest <directory>");
  });
});
