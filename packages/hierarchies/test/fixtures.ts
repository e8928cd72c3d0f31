/** Test helper: asserts that a call throws a HierarchyError with the given reason (and message). */
import { assert } from "@effect/vitest";
import { HierarchyError } from "../src/index.ts";

export const assertThrowsHierarchy = (
  call: () => unknown,
  reason: HierarchyError["reason"],
  message?: string,
) => {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  assert.instanceOf(thrown, HierarchyError);
  assert.strictEqual((thrown as HierarchyError).reason, reason);
  if (message !== undefined) assert.strictEqual((thrown as HierarchyError).message, message);
};
