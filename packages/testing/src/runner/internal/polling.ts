/**
 * The real-time polling behind `KopfRunner.waitFor`/`waitForOutput`: look until a value passes,
 * or fail with `KopfRunnerError` ("Timeout") and a message saying what was last seen. KopfRunner
 * is a promise API around a running operator in real time, so this is edge code by design.
 */
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { KopfRunnerError } from "../KopfRunnerOptions.ts";

/** Waits `ms` on Effect's clock. */
const delay = (ms: number): Promise<void> => Effect.runPromise(Effect.sleep(ms));

/** Now, in milliseconds, from Effect's clock. */
const now = (): number => Effect.runSync(Clock.currentTimeMillis);

/** Looks every `interval` ms (default 50) until `passes`; then answers what was seen. */
export const until = async <A>(
  look: () => Promise<A> | A,
  passes: (seen: A) => boolean,
  failure: (seen: A) => string,
  options: { readonly timeout?: number | undefined; readonly interval?: number | undefined } = {},
): Promise<A> => {
  const deadline = now() + (options.timeout ?? 20_000);
  for (;;) {
    const seen = await look();
    if (passes(seen)) return seen;
    if (now() > deadline) throw new KopfRunnerError({ reason: "Timeout", message: failure(seen) });
    await delay(options.interval ?? 50);
  }
};
