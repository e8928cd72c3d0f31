// Covers where the test runner meets the test's process: relative paths resolve from the runner's
// `cwd` when given, else from the test's working directory; absolute ones stay as they are. (That
// a run by command-line arguments sees none of the test's KOPF_RUN_* variables is covered through
// KopfRunner in packages/cli/test/Cli.test.ts.)
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as TestProcess from "../../../src/runner/node/TestProcess.ts";

describe("TestProcess", () => {
  it("resolves from the test's working directory", () => {
    expect(TestProcess.workingDirectory()).toBe(process.cwd());
  });

  it.each([
    ["a relative path, from the given cwd", "crd.yaml", "/repo/examples", "/repo/examples/crd.yaml"],
    ["a relative path with ..", "../crd.yaml", "/repo/examples", "/repo/crd.yaml"],
    ["an absolute path, as it is", "/elsewhere/crd.yaml", "/repo/examples", "/elsewhere/crd.yaml"],
    ["a relative path without a cwd", "crd.yaml", undefined, join(process.cwd(), "crd.yaml")],
  ])("resolves %s", (_, path, cwd, expected) => {
    expect(TestProcess.resolvePath(path, cwd)).toBe(expected);
  });
});
