// Covers KOPF_TEST_CLUSTER parsing: the three targets, the default, whitespace, and the errors.
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import * as Target from "../../src/runner/ClusterTarget.ts";

describe("Target.parse", () => {
  it.each([
    [undefined, Target.emulator],
    ["", Target.emulator],
    ["emulator", Target.emulator],
    ["  real ", Target.real],
    ["kubeconfig:/tmp/k", Target.kubeconfig("/tmp/k")],
    ["kubeconfig: /home/me/.kube/config ", Target.kubeconfig("/home/me/.kube/config")],
  ])("%j names %j", (spec, expected) => {
    expect(Target.parse(spec)).toEqual(Result.succeed(expected));
  });

  it.each([
    ["kind", "Unknown", /not a cluster: expected emulator, real or kubeconfig:PATH/],
    ["Real", "Unknown", /"Real"/],
    ["kubeconfig:", "EmptyPath", /needs a path/],
    ["kubeconfig:   ", "EmptyPath", /needs a path/],
  ])("%j is rejected (%s)", (spec, reason, message) => {
    const parsed = Target.parse(spec);
    expect(Result.isFailure(parsed)).toBe(true);
    if (Result.isFailure(parsed)) {
      expect(parsed.failure.reason).toBe(reason);
      expect(parsed.failure.message).toMatch(message);
      expect(parsed.failure.message).toContain(Target.ENV_VAR);
    }
  });

  it.each([
    [Target.emulator, "emulator"],
    [Target.real, "real kube-apiserver"],
    [Target.kubeconfig("/k"), "kubeconfig /k"],
  ])("describes %j as %s", (target, text) => {
    expect(Target.describe(target)).toBe(text);
  });
});
