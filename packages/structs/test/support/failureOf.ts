// Test support: the failure of a Result that is expected to fail (failing the test otherwise).
import * as Result from "effect/Result";

/** The failure of `result`; throws (failing the test) when it succeeded. */
export const failureOf = <A, E>(result: Result.Result<A, E>): E => {
  if (Result.isSuccess(result))
    throw new Error(`Expected a failure, got a success: ${JSON.stringify(result.success)}`);
  return result.failure;
};
