/**
 * The real-time polling behind `KopfRunner.waitFor`/`waitForOutput`: look until a value passes,
 * or fail with `KopfRunnerError` ("Timeout") and a message saying what was last seen. KopfRunner
 * is a promise API around a running operator in real time, so this is edge code by design.
 */
import { KopfRunnerError } from "../KopfRunnerOptions.ts";

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Looks every `interval` ms (default 50) until `passes`; then answers what was seen. */
export const until = async <A>(
  look: () => Promise<A> | A,
  passes: (seen: A) => boolean,
  failure: (seen: A) => string,
  options: { readonly timeout?: number | undefined; readonly interval?: number | undefined } = {},
): Promise<A> => {
  const deadline = performance.now() + (options.timeout ?? 20_000);
  for (;;) {
    const seen = await look();
    if (passes(seen)) return seen;
    if (performance.now() > deadline)
      throw new KopfRunnerError({ reason: "Timeout", message: failure(seen) });
    await delay(options.interval ?? 50);
  }
};
