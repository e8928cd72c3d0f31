/**
 * The indexing engine (Kopf's `index_resource` and the operator's readiness, docs/behaviour/indexing.md): plugged
 * into the runtime's indexing seam, it calls the `on.index` handlers of every event's object —
 * before anything else runs for it — and keeps their results in {@link Indices.MutableIndex}es
 * named after the handlers, which every handler gets in its context by name.
 *
 * - A mapping result stores its key/value pairs, any other non-null value goes under the key
 *   `null`, `null`/nothing keeps the previous values; keys no longer returned are dropped.
 * - A deleted object's values are removed (handlers are not called); so are those of an object
 *   that stopped matching a handler's filters.
 * - Failures follow the handler's errors mode (default `ignored`: stale values kept). A temporary
 *   failure removes the values and skips the object for that handler until its delay passed; a
 *   permanent one (or exhausted retries/timeout) excludes it for the engine's lifetime. Only
 *   failures are remembered; successes re-run on every event.
 * - Readiness: every event's further processing waits (`indexed`) until each watch of an indexed
 *   resource has finished its initial listing and each listed object was indexed once; indexing
 *   itself never waits. Once ready, the operator stays ready (new namespaces do not block).
 *
 * Unlike Kopf, index handlers get a per-object memo of this engine, not the object's memo of
 * the processing (the seam does not pass it); it persists between the object's events.
 */
import {
  type HandlerCause,
  type IndexingHandler,
  Lifecycles,
  Matching,
  type Memo,
  type Registry,
} from "@kopf/registry";
import type { Engines } from "@kopf/runtime";
import { Handling, Logging } from "@kopf/runtime";
import { OperatorSettings } from "@kopf/settings";
import { HandlerState } from "@kopf/storage";
import { IsoTime, Patch, Resource } from "@kopf/structs";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Indices from "./Indices.ts";

/** A watch (resource × namespace) as the runtime's orchestrator reports it. */
export interface Cell {
  readonly resource: Resource.Resource;
  readonly namespace: string | null;
}

/** The engine: the runtime's seams plus the listing notifications. */
export interface IndexingEngine {
  readonly indexing: (input: Engines.IndexingInput) => Effect.Effect<void>;
  readonly indexed: Effect.Effect<void>;
  /** Whether indexing and its wait would do nothing for this resource's events now. */
  readonly indexIdle: (resource: Resource.Resource) => boolean;
  readonly indices: () => Readonly<Record<string, unknown>>;
  /** A watch starts listing. */
  readonly listing: (cell: Cell) => Effect.Effect<void>;
  /** A watch finished its initial listing of these objects (their memory keys). */
  readonly listed: (cell: Cell, keys: ReadonlyArray<string>) => Effect.Effect<void>;
  /** The indices by name (for tests and operator-level code). */
  readonly byName: ReadonlyMap<string, Indices.MutableIndex>;
}

interface Failure {
  readonly state: HandlerState.HandlerState;
  readonly permanent: boolean;
}

interface Listing {
  listed: boolean;
  pending: Set<string>;
}

const cellKey = (cell: Cell) => `${Resource.toString(cell.resource)}@${cell.namespace ?? ""}`;

/**
 * Creates the engine for a registry; its indices exist (empty) from the start.
 *
 * @example
 * ```ts
 * const indexing = yield* Indexing.make(registry)
 * yield* Operator.run({ registry, engines: { indexing: indexing.indexing, indexed: indexing.indexed, indices: indexing.indices } })
 * ```
 */
export const make = (registry: Registry.Registry<any>): Effect.Effect<IndexingEngine> =>
  Effect.sync(() => {
    const byName = new Map<string, Indices.MutableIndex>();
    for (const handler of registry.indexing) byName.set(handler.id, new Indices.MutableIndex());
    const views: Readonly<Record<string, unknown>> = Object.freeze(Object.fromEntries(byName));
    const failures = new Map<string, Map<string, Failure>>();
    const memos = new Map<string, Memo>();
    const listings = new Map<string, Listing>();
    const seen = new Set<string>();
    const ready = Deferred.makeUnsafe<void>();

    const check = () => {
      if (Deferred.isDoneUnsafe(ready)) return;
      for (const listing of listings.values()) if (!listing.listed || listing.pending.size > 0) return;
      Deferred.doneUnsafe(ready, Effect.void);
    };
    const indexedResource = (resource: Resource.Resource) => registry.indexingFor(resource).length > 0;
    if (registry.indexing.length === 0) check();

    const done = (key: string) => {
      seen.add(key);
      for (const listing of listings.values()) listing.pending.delete(key);
      check();
    };

    const indexing = (input: Engines.IndexingInput): Effect.Effect<void> => {
      // Every event of every resource passes here: without indexing handlers, no effect is made.
      const handlers = registry.indexingFor(input.resource);
      return handlers.length === 0 ? Effect.void : indexObject(input, handlers);
    };

    const indexObject = (input: Engines.IndexingInput, handlers: ReadonlyArray<IndexingHandler>) =>
      Effect.gen(function* () {
        const { resource, event, key } = input;
        const object = `${Resource.toString(resource)}/${key}`;
        if (event.type === "DELETED") {
          for (const handler of handlers) byName.get(handler.id)?.remove(object);
          failures.delete(object);
          memos.delete(object);
          return done(key);
        }
        const settings = yield* OperatorSettings;
        const services = yield* Effect.context<never>();
        const body = event.object;
        let memo = memos.get(object);
        if (memo === undefined) {
          memo = {};
          memos.set(object, memo);
        }
        const cause: HandlerCause.IndexingCause = {
          _tag: "IndexingCause",
          resource,
          body,
          patch: Patch.make(body),
          logger: Logging.handlerLogger(services, { [Logging.LOCAL]: true }),
          memo,
          indices: views,
        };
        const matching = new Set(Matching.indexingHandlers(handlers, cause).map((h) => h.id));
        const failed = failures.get(object) ?? new Map<string, Failure>();
        failures.set(object, failed);
        for (const handler of handlers) {
          const index = byName.get(handler.id);
          if (index === undefined) continue;
          if (!matching.has(handler.id)) {
            index.remove(object);
            continue;
          }
          const now = yield* IsoTime.now;
          const failure = failed.get(handler.id);
          if (failure !== undefined && (failure.permanent || HandlerState.isSleeping(failure.state, now)))
            continue;
          const state = failure?.state ?? HandlerState.fromScratch(now);
          const outcome = yield* Handling.executeHandlerOnce({
            handler,
            cause,
            state,
            settings,
            lifecycle: Lifecycles.all_at_once,
          });
          if (outcome.error === undefined || outcome.error === null) {
            failed.delete(handler.id);
            const pairs = Indices.pairsOf(outcome.result);
            if (pairs !== undefined) index.replace(object, pairs);
          } else {
            index.remove(object);
            const next = HandlerState.withOutcome(state, outcome, yield* IsoTime.now);
            failed.set(handler.id, { state: next, permanent: outcome.final });
          }
        }
        if (failed.size === 0) failures.delete(object);
        done(key);
      }).pipe(
        // Indexing logs locally, as Kopf does: neither the handlers' lines nor the framework's
        // lines about them are ever posted as Kubernetes events.
        Effect.annotateLogs(Logging.LOCAL, true),
      );

    return {
      indexing,
      indexed: Effect.suspend(() => (Deferred.isDoneUnsafe(ready) ? Effect.void : Deferred.await(ready))),
      indexIdle: (resource) => Deferred.isDoneUnsafe(ready) && !indexedResource(resource),
      indices: () => views,
      listing: (cell) =>
        Effect.sync(() => {
          if (Deferred.isDoneUnsafe(ready) || !indexedResource(cell.resource)) return;
          if (!listings.has(cellKey(cell)))
            listings.set(cellKey(cell), { listed: false, pending: new Set() });
        }),
      listed: (cell, keys) =>
        Effect.sync(() => {
          const listing = listings.get(cellKey(cell));
          if (listing === undefined || listing.listed) return;
          listing.listed = true;
          listing.pending = new Set(keys.filter((key) => !seen.has(key)));
          check();
        }),
      byName,
    };
  });
