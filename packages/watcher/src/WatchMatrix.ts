/**
 * The matrix of watches an operator runs (docs/behaviour/watching.md#orchestration): one per (watched resource × served
 * namespace), with the namespace collapsed to `null` (cluster-wide) for cluster-scoped
 * resources and when serving the whole cluster. `cells` and `plan` are pure; `run` keeps one
 * fiber per cell in sync with the resource and namespace observers: obsolete watches are stopped
 * first, missing ones started. A watch that ends (it should not) is started again on the next
 * change of either input, unlike Kopf, which never restarts a dead watcher.
 */
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as FiberMap from "effect/FiberMap";
import * as Stream from "effect/Stream";

/** One watch: a resource in a namespace (`null`: cluster-wide). */
export interface Cell {
  readonly resource: Resource.Resource;
  readonly namespace: string | null;
}

/** A stable identity of a cell: `plural.version.group@namespace` (`*` for cluster-wide). */
export const keyOf = (cell: Cell): string => `${Resource.toString(cell.resource)}@${cell.namespace ?? "*"}`;

/**
 * The cells for the watched resources and the served namespaces, without duplicates.
 *
 * @example
 * cells([kopfexamples, clusterThings], new Set(["ns1", "ns2"]))
 * // kopfexamples@ns1, kopfexamples@ns2, clusterthings@*
 */
export const cells = (
  resources: ReadonlyArray<Resource.Resource>,
  namespaces: ReadonlySet<string | null>,
): ReadonlyArray<Cell> => {
  const result = new Map<string, Cell>();
  for (const resource of resources) {
    for (const namespace of namespaces) {
      const cell: Cell = { resource, namespace: resource.namespaced === true ? namespace : null };
      result.set(keyOf(cell), cell);
    }
  }
  return [...result.values()];
};

/** What to change to go from the running cells to the desired ones. */
export interface Plan {
  readonly stop: ReadonlyArray<string>;
  readonly start: ReadonlyArray<Cell>;
}

/**
 * The keys to stop and the cells to start.
 *
 * @example
 * plan(new Set(["pods.v1@ns1"]), cells([pods], new Set(["ns2"])))
 * // { stop: ["pods.v1@ns1"], start: [pods@ns2] }
 */
export const plan = (running: ReadonlySet<string>, desired: ReadonlyArray<Cell>): Plan => {
  const wanted = new Set(desired.map(keyOf));
  return {
    stop: [...running].filter((key) => !wanted.has(key)).sort(),
    start: desired.filter((cell) => !running.has(keyOf(cell))),
  };
};

/**
 * Runs `spawn(cell)` for every cell of the latest resources × namespaces, stopping and starting
 * watches as either changes, until interrupted (then every watch is stopped).
 *
 * @example
 * yield* WatchMatrix.run(
 *   SubscriptionRef.changes(resources.observed).pipe(Stream.map((o) => o.insights.watched)),
 *   SubscriptionRef.changes(namespaces.namespaces),
 *   (cell) => processEvents(Watcher.stream(cell.resource, cell.namespace)),
 * )
 */
export const run = <E, R>(
  resources: Stream.Stream<ReadonlyArray<Resource.Resource>>,
  namespaces: Stream.Stream<ReadonlySet<string | null>>,
  spawn: (cell: Cell) => Effect.Effect<unknown, E, R>,
): Effect.Effect<void, never, R> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fibers = yield* FiberMap.make<string>();
      const running = new Set<string>();
      yield* Stream.runForEach(Stream.zipLatest(resources, namespaces), ([watched, served]) =>
        Effect.gen(function* () {
          const live = new Set<string>();
          for (const key of running) if (yield* FiberMap.has(fibers, key)) live.add(key);
          const next = plan(live, cells(watched, served));
          for (const key of next.stop) yield* FiberMap.remove(fibers, key);
          for (const cell of next.start) yield* FiberMap.run(fibers, keyOf(cell), spawn(cell));
          running.clear();
          for (const cell of cells(watched, served)) running.add(keyOf(cell));
        }),
      );
    }),
  );
