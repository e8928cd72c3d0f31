// Covers where the test runner meets the test's process: a run by command-line arguments sees the
// test's environment without the test's own KOPF_RUN_* variables, and relative paths resolve
// from the test's working directory.
import { afterEach, describe, expect, it } from "vitest";
import * as TestProcess from "../../../src/runner/node/TestProcess.ts";

const SET = ["KOPF_RUN_NAMESPACE", "KOPF_TEST_PROBE"] as const;

describe("TestProcess", () => {
  afterEach(() => {
    for (const key of SET) delete process.env[key];
  });

  it("gives a run the test's environment without its KOPF_RUN_* variables", () => {
    process.env.KOPF_RUN_NAMESPACE = "from-the-test";
    process.env.KOPF_TEST_PROBE = "kept";
    const env = TestProcess.runEnvironment();
    expect(env.KOPF_TEST_PROBE).toBe("kept");
    expect(Object.keys(env).filter((key) => key.startsWith("KOPF_RUN_"))).toEqual([]);
    expect(env.PATH).toBe(process.env.PATH);
  });

  it("resolves from the test's working directory", () => {
    expect(TestProcess.workingDirectory()).toBe(process.cwd());
  });
});
