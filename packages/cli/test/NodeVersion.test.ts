/**
 * The launcher's Node.js version check: the comparison as a table, the required version being the
 * one every public package declares in `engines`, and an old Node.js (the machine's, when it is
 * older) getting one line and exit code 1 from the real launcher.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { problem, REQUIRED, satisfies } from "../bin/node-version.js";

const here = dirname(fileURLToPath(import.meta.url));
const packages = join(here, "../..");

describe("satisfies", () => {
  it.each([
    ["22.19.0", "22.19.0", true],
    ["v22.19.0", "22.19.0", true],
    ["22.23.5", "22.19.0", true],
    ["24.0.0", "22.19.0", true],
    ["26.12.1", "22.19.0", true],
    ["22.18.9", "22.19.0", false],
    ["22.9.0", "22.19.0", false],
    ["20.20.2", "22.19.0", false],
    ["23.0.0-pre", "22.19.0", true],
  ])("%s against %s is %s", (found, required, expected) => {
    expect(satisfies(found, required)).toBe(expected);
  });
});

describe("problem", () => {
  it("names the required and the found version in one line", () => {
    const line = problem("20.20.2", "/usr/bin/node");
    expect(line).toBe(`kopf needs Node.js ${REQUIRED} or newer; this is Node.js 20.20.2 (/usr/bin/node).`);
    expect(line).not.toContain("\n");
  });

  it("has nothing to say about this Node.js", () => {
    expect(problem(process.versions.node)).toBeUndefined();
  });
});

describe("REQUIRED", () => {
  it("is what every public package declares in engines", () => {
    const declared = readdirSync(packages)
      .map((dir) => join(packages, dir, "package.json"))
      .filter((path) => existsSync(path))
      .map(
        (path) =>
          JSON.parse(readFileSync(path, "utf-8")) as {
            name: string;
            private?: boolean;
            engines?: { node?: string };
          },
      )
      .filter((pkg) => pkg.private !== true)
      .map((pkg) => [pkg.name, pkg.engines?.node]);
    expect(declared.length).toBeGreaterThan(10);
    expect(declared.filter(([, engines]) => engines !== `>=${REQUIRED}`)).toEqual([]);
  });
});

// The machine's own Node.js is older on some machines (v20 here): the launcher must not reach
// any import that needs a newer one.
const systemNode = "/usr/bin/node";
const systemVersion = existsSync(systemNode)
  ? spawnSync(systemNode, ["-p", "process.versions.node"], { encoding: "utf-8" }).stdout.trim()
  : "";

describe.runIf(systemVersion !== "" && !satisfies(systemVersion))("an older Node.js", () => {
  it(`gets one line and exit code 1 (${systemNode} ${systemVersion})`, () => {
    const run = spawnSync(systemNode, [join(here, "../bin/kopf.js"), "run", "handlers.ts"], {
      encoding: "utf-8",
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `kopf needs Node.js ${REQUIRED} or newer; this is Node.js ${systemVersion} (${systemNode}).\n`,
    );
  });
});
