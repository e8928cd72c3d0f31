/**
 * Lifecycles: which of the awakened handlers of a changing cause run in this processing cycle,
 * and in which order (docs/behaviour/processing.md#lifecycles). The runtime offers the handlers that are neither finished nor
 * sleeping, in registration order, and runs the returned plan sequentially.
 *
 * Pure functions: randomness comes in as `ctx.random` (a `() => number` in `[0, 1)`, which the
 * runtime draws from Effect's `Random`), never from `Math.random`.
 */
import type { HandlerId } from "./HandlerId.ts";

/** What a lifecycle may consult besides the handlers themselves. */
export interface LifecycleContext {
  /** How many attempts a handler has already made (0 when it never ran). */
  readonly retries: (id: HandlerId) => number;
  /** A uniform random number in `[0, 1)`. */
  readonly random: () => number;
}

/**
 * A lifecycle: selects and orders handlers for one cycle.
 *
 * @example
 * const newestFirst: Lifecycle = (handlers) => [...handlers].reverse().slice(0, 1)
 */
export type Lifecycle = <H extends { readonly id: HandlerId }>(
  handlers: ReadonlyArray<H>,
  ctx: LifecycleContext,
) => ReadonlyArray<H>;

/**
 * All handlers at once, in registration order.
 *
 * @example
 * all_at_once([h1, h2], ctx) // [h1, h2]
 */
export const all_at_once: Lifecycle = (handlers) => [...handlers];

/**
 * One handler per cycle, the first registered.
 *
 * @example
 * one_by_one([h1, h2], ctx) // [h1]
 */
export const one_by_one: Lifecycle = (handlers) => handlers.slice(0, 1);

/** An index in `[0, n)` from a random number, safe against generators returning exactly 1. */
const pick = (random: () => number, n: number): number => Math.min(n - 1, Math.floor(random() * n));

/**
 * One random handler per cycle.
 *
 * @example
 * randomized([h1, h2, h3], { ...ctx, random: () => 0.5 }) // [h2]
 */
export const randomized: Lifecycle = (handlers, ctx) => {
  if (handlers.length === 0) return [];
  const chosen = handlers[pick(ctx.random, handlers.length)];
  return chosen === undefined ? [] : [chosen];
};

/**
 * All handlers at once, in a random order (Fisher–Yates).
 *
 * @example
 * shuffled([h1, h2, h3], ctx) // e.g. [h3, h1, h2]
 */
export const shuffled: Lifecycle = (handlers, ctx) => {
  const out = [...handlers];
  for (let i = out.length - 1; i > 0; i--) {
    const j = pick(ctx.random, i + 1);
    const a = out[i];
    const b = out[j];
    if (a !== undefined && b !== undefined) {
      out[i] = b;
      out[j] = a;
    }
  }
  return out;
};

/**
 * The default: one handler per cycle, the one with the fewest retries so far (the first
 * registered on ties), so a failing handler does not block the others.
 *
 * @example
 * asap([h1, h2, h3], { ...ctx, retries: (id) => ({ h1: 2, h2: 0, h3: 1 })[id] ?? 0 }) // [h2]
 */
export const asap: Lifecycle = (handlers, ctx) => {
  let best: (typeof handlers)[number] | undefined;
  let bestRetries = Number.POSITIVE_INFINITY;
  for (const handler of handlers) {
    const retries = ctx.retries(handler.id) || 0; // absent/NaN count as no retries, as in Kopf
    if (retries < bestRetries) {
      best = handler;
      bestRetries = retries;
    }
  }
  return best === undefined ? [] : [best];
};

/** The lifecycle used when none is configured. */
export const defaultLifecycle: Lifecycle = asap;
