/**
 * The namespaces an operator serves, kept current while it runs (Kopf's `namespace_observer`,
 * docs/behaviour/watching.md#namespaces): cluster-wide (`{null}`), or the namespaces matching the patterns (plain names,
 * globs, negations, regexes), found by listing and then watching namespaces so that per-namespace
 * watches can start and stop as namespaces come and go. The decisions are in
 * {@link NamespaceRevision}; this module runs the namespace watcher and publishes the set.
 *
 * - cluster-wide: `{null}`, no namespace watching;
 * - `scanning.disabled`: only the specific patterns (plain names), no watching;
 * - 403 on listing: the specific patterns, with Kopf's warning; 403 on watching: the listed set,
 *   with Kopf's warning, no further changes.
 */
import { Namespaces } from "@kopf/structs";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type { ApiFailure, ListWatch } from "./ListWatch.ts";
import * as NamespaceRevision from "./NamespaceRevision.ts";
import * as Watcher from "./Watcher.ts";

/** A served namespace; `null` means cluster-wide. */
export type Namespace = string | null;

/** A namespace pattern as Kopf accepts it: a glob expression (`"ns*,!ns9"`) or a regex. */
export type Pattern = string | RegExp;

/** What to observe. */
export interface Options {
  /** Serve the whole cluster (`--all-namespaces`). */
  readonly clusterwide: boolean;
  /** The namespace patterns (`--namespace`), used when not cluster-wide. */
  readonly namespaces: ReadonlyArray<Pattern>;
  /** `settings.scanning.disabled`: do not list or watch namespaces; use the plain names only. */
  readonly scanningDisabled?: boolean | undefined;
  /** Options of the namespace watcher (from `settings.watching`). */
  readonly watcher?: Watcher.Options | undefined;
}

/** The observed namespaces. */
export interface NamespaceObserver {
  /** The served namespaces, updated as namespaces appear and disappear. */
  readonly namespaces: SubscriptionRef.SubscriptionRef<ReadonlySet<Namespace>>;
}

/** The pattern matching of a list of patterns, as the revision needs it. */
export const patternsOf = (namespaces: ReadonlyArray<Pattern>): NamespaceRevision.Patterns => ({
  matches: (name) => namespaces.some((pattern) => Namespaces.matchNamespace(name, pattern)),
  specific: new Set(Namespaces.selectSpecificNamespaces(namespaces)),
});

const sameSet = (a: ReadonlySet<Namespace>, b: ReadonlySet<Namespace>) =>
  a.size === b.size && [...a].every((x) => b.has(x));

/**
 * Starts observing namespaces in the current scope; returns once the initial set is known (after
 * the first listing, or at once when cluster-wide, with scanning disabled, or on 403).
 *
 * @example
 * const observer = yield* NamespaceObserver.make(namespacesListWatch, { clusterwide: false, namespaces: ["ns*", "!ns9"] })
 * yield* Stream.runForEach(SubscriptionRef.changes(observer.namespaces), (set) => Effect.log([...set]))
 */
export const make = <E extends ApiFailure>(
  api: ListWatch<E>,
  options: Options,
): Effect.Effect<NamespaceObserver, never, Scope.Scope> =>
  Effect.gen(function* () {
    if (options.clusterwide) {
      return { namespaces: yield* SubscriptionRef.make<ReadonlySet<Namespace>>(new Set([null])) };
    }
    const patterns = patternsOf(options.namespaces);
    if (options.scanningDisabled === true) {
      return { namespaces: yield* SubscriptionRef.make<ReadonlySet<Namespace>>(new Set(patterns.specific)) };
    }
    const ref = yield* SubscriptionRef.make<ReadonlySet<Namespace>>(new Set());
    const ready = yield* Deferred.make<void>();
    let state = NamespaceRevision.initial;
    const items = Watcher.fromListWatch(
      api,
      { resource: "namespaces.v1", namespace: null },
      options.watcher ?? {},
    );
    yield* Effect.forkScoped(
      Stream.runForEachWhile(items, (item: Watcher.Item) =>
        Effect.gen(function* () {
          const next = NamespaceRevision.step(state, item, patterns);
          state = next.state;
          for (const line of next.logs.warnings) yield* Effect.logWarning(line);
          for (const line of next.logs.debug) yield* Effect.logDebug(line);
          if (state.ready) {
            const current = yield* SubscriptionRef.get(ref);
            if (!sameSet(current, state.namespaces))
              yield* SubscriptionRef.set(ref, new Set(state.namespaces));
            yield* Deferred.succeed(ready, undefined);
          }
          return !state.stopped;
        }),
      ),
    );
    yield* Deferred.await(ready);
    return { namespaces: ref };
  });
