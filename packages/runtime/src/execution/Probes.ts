/**
 * The probes' results as the health endpoint serves them (docs/behaviour/operator.md#liveness-endpoint): all `on.probe` handlers
 * run at most once per `maxAge` (10 s by default, on the `Clock`); requests within that age get
 * the last results, concurrent requests share one run. A run tries each probe once: a probe
 * failing in any way fails the run at once, without retries (its waiters get the
 * `ActivityError`, which the endpoint answers with 500), and a failed run is not remembered (the
 * next request runs the probes again).
 */
import type { Registry } from "@kopf/registry";
import type { State } from "@kopf/storage";
import * as Clock from "effect/Clock";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Ref from "effect/Ref";
import { type ActivityError, type ActivityOptions, probe } from "./Activities.ts";

/** Kopf's maximal age of the probes' results, in seconds. */
export const DEFAULT_MAX_AGE = 10;

/** The results of one probing run, shared by the requests that wait for it. */
type Results = Readonly<Record<string, unknown>>;
type Run = Deferred.Deferred<Results, ActivityError | State.StateError>;
type Entry = { readonly at: number; readonly run: Run } | undefined;

/** A source of probe results for the health endpoint. */
export interface Prober {
  /** The probes' results by handler id (`{}` without probes), fresh enough. */
  readonly results: Effect.Effect<Results, ActivityError | State.StateError>;
}

/**
 * A prober over the registry's `on.probe` handlers.
 *
 * @example
 * const prober = yield* Probes.make(registry, { memo })
 * const body = JSON.stringify(yield* prober.results) // on every GET of the liveness path
 */
export const make = (
  registry: Pick<Registry.Registry<any>, "activityHandlers">,
  options: ActivityOptions & { readonly maxAge?: number | undefined } = {},
): Effect.Effect<Prober> =>
  Effect.gen(function* () {
    const maxAge = (options.maxAge ?? DEFAULT_MAX_AGE) * 1000;
    const latest = yield* Ref.make<Entry>(undefined);
    const results = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis;
      const fresh = yield* Deferred.make<Results, ActivityError | State.StateError>();
      const [run, owner] = yield* Ref.modify(latest, (entry): readonly [readonly [Run, boolean], Entry] =>
        entry !== undefined && now - entry.at < maxAge
          ? [[entry.run, false], entry]
          : [[fresh, true], { at: now, run: fresh }],
      );
      if (owner) {
        const exit = yield* Effect.exit(probe(registry, options));
        if (Exit.isFailure(exit))
          yield* Ref.update(latest, (entry) => (entry?.run === run ? undefined : entry));
        yield* Deferred.done(run, exit);
      }
      return yield* Deferred.await(run);
    });
    return { results };
  });
