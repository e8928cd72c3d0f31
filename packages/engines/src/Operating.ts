/**
 * The operator with every engine (Kopf's full `spawn_tasks`): the runtime's `Operator.run` with
 * the daemons-and-timers and indexing engines plugged into its seams. This is what the `kopf`
 * facade and the CLI run; `Operator.run` alone is the bare runtime.
 *
 * On exit, the operator stops first (watches, running handlers, cleanup), then the daemons and
 * timers are stopped with `operator-exiting` (the engines' scope closes).
 */
import type { KubeApi } from "@kopf/client";
import { type Engines, Operator, type OperatorError } from "@kopf/runtime";
import { Effect, type Scope } from "effect";
import * as Daemons from "./Daemons.ts";
import * as Indexing from "./Indexing.ts";

/** The engines of one operator, for embedding them into a custom composition. */
export interface OperatorEngines {
  readonly daemons: Daemons.DaemonsEngine;
  readonly indexing: Indexing.IndexingEngine;
  /** The runtime's seams, ready to pass as `Operator.run({ engines })`. */
  readonly engines: Engines.Engines;
}

/**
 * Creates the engines for a registry in the current scope.
 *
 * @example
 * ```ts
 * const { engines } = yield* Operating.makeEngines(registry)
 * yield* Operator.run({ registry, clusterwide: true, engines })
 * ```
 */
export const makeEngines = (
  registry: Operator.OperatorOptions["registry"],
): Effect.Effect<OperatorEngines, never, Scope.Scope> =>
  Effect.gen(function* () {
    const daemons = yield* Daemons.make;
    const indexing = yield* Indexing.make(registry);
    return {
      daemons,
      indexing,
      engines: {
        spawning: daemons.spawning,
        indexing: indexing.indexing,
        indexed: indexing.indexed,
        indices: indexing.indices,
        listing: indexing.listing,
        listed: indexing.listed,
      },
    };
  });

/**
 * Runs the operator with all engines until interrupted (a graceful stop).
 *
 * @example
 * ```ts
 * yield* Operating.run({ registry, namespaces: ["default"] }) // provide a KubeApi; interrupt to stop
 * ```
 */
export const run = (options: Operator.OperatorOptions): Effect.Effect<void, OperatorError, KubeApi> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { engines } = yield* makeEngines(options.registry);
      yield* Operator.run({ ...options, engines: { ...engines, ...options.engines } });
    }),
  );
