// Covers where the test runner meets the test's process: relative paths resolve from the test's
// working directory. (That a run by command-line arguments sees none of the test's KOPF_RUN_*
// variables is covered through KopfRunner in packages/cli/test/Cli.test.ts.)
import { describe, expect, it } from "vitest";
import * as TestProcess from "../../../src/runner/node/TestProcess.ts";

describe("TestProcess", () => {
  it("resolves from the test's working directory", () => {
    expect(TestProcess.workingDirectory()).toBe(process.cwd());
  });
});
