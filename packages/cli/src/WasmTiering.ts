/**
 * WebAssembly compilation in a `kopf run` process. undici (the HTTP client of credentials with
 * a proxy, and of `fetch`, which kubernetes-fluent-client uses) parses responses with llhttp
 * compiled to WebAssembly; the default transport's parser is native code and needs none of this. V8 compiles it with its baseline
 * compiler (Liftoff) and then recompiles the hot parser function with its optimizing compiler
 * (TurboFan) on its worker threads. That one recompilation of a large function costs ~0.1-0.2 s
 * of CPU soon after start, and the compiler's working memory stays with the C allocator's
 * per-thread arenas afterwards: ~10 MiB of RSS for the process's life. An operator parses a few
 * small responses per object, for which Liftoff's code is fast enough (measured side by side, see
 * docs/performance.md), so `kopf run` keeps WebAssembly on Liftoff.
 *
 * The flags are set in the running process (`v8.setFlagsFromString`) before the HTTP client is
 * loaded, like the heap sizing's; a user's own flag for WebAssembly's compilers on Node's command
 * line or in `NODE_OPTIONS` wins: {@link plan} leaves them alone.
 */
import * as v8 from "node:v8";
import { mentions, startFlags } from "./internal/nodeFlags.ts";

/** V8's flags that keep WebAssembly on Liftoff: no tiering up, eager or dynamic. */
export const LIFTOFF_ONLY = ["--liftoff-only", "--no-wasm-dynamic-tiering", "--no-wasm-tier-up"] as const;

/** Flags of WebAssembly's compilers: with one of them the user decides. */
const WASM_FLAGS = [
  "--liftoff",
  "--liftoff-only",
  "--wasm-dynamic-tiering",
  "--wasm-tier-up",
  "--wasm-lazy-compilation",
];

/**
 * Whether to keep WebAssembly on Liftoff, given Node's own options: `execArgv` (the command line
 * before the script) and the `NODE_OPTIONS` environment variable.
 *
 * @example
 * ```ts
 * WasmTiering.plan([], undefined) // true
 * WasmTiering.plan(["--no-liftoff"], undefined) // false: the user's choice
 * ```
 */
export const plan = (execArgv: ReadonlyArray<string>, nodeOptions: string | undefined): boolean =>
  !mentions(startFlags(execArgv, nodeOptions), WASM_FLAGS);

/**
 * Keeps the WebAssembly compiled from now on on Liftoff, if `liftoffOnly`.
 *
 * @example
 * ```ts
 * WasmTiering.apply(WasmTiering.plan(process.execArgv, process.env.NODE_OPTIONS))
 * ```
 */
export const apply = (liftoffOnly: boolean): void => {
  if (!liftoffOnly) return;
  for (const flag of LIFTOFF_ONLY) v8.setFlagsFromString(flag);
};
