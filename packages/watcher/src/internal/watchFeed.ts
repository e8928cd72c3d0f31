/**
 * A watcher's inputs through its state machine: each input is stepped by `WatchState` and its
 * outputs are emitted to the watcher's queue (problems reported first, the objects a relisting
 * found gone offered as synthetic deletions before `Listed`). A received chunk of watch events, or
 * a page of a listing, is stepped in a plain loop and offered at once; only an input with other
 * outputs than events (a problem) goes through the effects one by one.
 */
import type { RawBody } from "@kopf/structs";
import type * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Queue from "effect/Queue";
import type { ListPage, RawWatchEvent } from "../ListWatch.ts";
import * as WatchState from "../WatchState.ts";
import { fillKind, toInput } from "./events.ts";
import type { KnownObjects } from "./knownObjects.ts";
import type { WatchMetrics } from "./watchMetrics.ts";

type Item = WatchState.Output<RawBody>;

/** What one watcher's feeding works with. */
export interface Options {
  readonly config: WatchState.Config;
  readonly queue: Queue.Queue<Item, Cause.Done>;
  /** The objects seen, for the synthetic deletions after a relisting; `null`: none are made. */
  readonly known: KnownObjects | null;
  readonly metrics: WatchMetrics;
  /** The objects of this watcher's shards; `undefined`: all. */
  readonly shard: { readonly keep: (object: RawBody) => boolean } | undefined;
  /** The watch as log lines name it: `kopfexamples.v1.kopf.dev in "ns1"`. */
  readonly name: string;
}

/** One watcher's feeding, and the state it keeps. */
export interface WatchFeed {
  /** The state machine's state now. */
  readonly state: () => WatchState.WatchState;
  /** One input: stepped, its outputs emitted; the action the machine asks for. */
  readonly feed: (input: WatchState.Input<RawBody>) => Effect.Effect<WatchState.Action>;
  /**
   * The events of one received chunk (`seenAt`: when it came), counted, stepped and offered;
   * the first action other than going on ends it (the rest of the chunk is not read), else
   * `undefined`.
   */
  readonly feedChunk: (
    events: ReadonlyArray<RawWatchEvent>,
    seenAt: number,
  ) => Effect.Effect<WatchState.Action | undefined>;
  /**
   * The items of one page of a listing (`seenAt`: when it came), counted, stepped and offered the
   * same way, each as listed (`type: null`), with `kind` and `apiVersion` filled in from the page.
   */
  readonly feedPage: (page: ListPage, seenAt: number) => Effect.Effect<void>;
}

/**
 * A new feeding, in the machine's initial state.
 *
 * @example
 * const feeding = WatchFeed.make({ config, queue, known: null, metrics, shard: undefined, name: "pods in \"default\"" })
 * const action = yield* feeding.feedChunk(chunk, clock.currentTimeMillisUnsafe())
 */
export const make = (options: Options): WatchFeed => {
  const { config, queue, known, metrics, shard } = options;
  let state = WatchState.initial;

  const report = (problem: WatchState.Problem) =>
    Effect.gen(function* () {
      yield* metrics.problem(problem.reason);
      if (problem.reason === "Gone") yield* metrics.gone;
      if (problem.reason === "Inactive") yield* metrics.watchdog;
      const line = `Watcher for ${options.name}: ${problem.message}`;
      yield* problem.reason === "Gone" || problem.reason === "Inactive"
        ? Effect.logInfo(line)
        : Effect.logWarning(line);
    });

  const step = (input: WatchState.Input<RawBody>): WatchState.Step<RawBody> => {
    const result = WatchState.step(state, input, config);
    state = result.state;
    return result;
  };

  const emit = (outputs: ReadonlyArray<Item>) =>
    Effect.gen(function* () {
      for (const output of outputs) {
        if (output._tag === "Problem") yield* report(output);
        if (output._tag === "Event") known?.seen(output.type, output.object);
        if (output._tag === "Listed") {
          for (const object of known?.vanished() ?? []) {
            yield* metrics.event("SYNTHETIC_DELETED");
            yield* Queue.offer(queue, { _tag: "Event", type: "DELETED", object, synthetic: true });
          }
        }
        yield* Queue.offer(queue, output);
      }
    });

  const feed = (input: WatchState.Input<RawBody>) =>
    Effect.suspend(() => {
      const result = step(input);
      return Effect.as(emit(result.emit), result.action);
    });

  // The items of one received chunk or list page from `from` on, in a plain loop: each counted as
  // `typeOf` says and stepped with the input `inputOf` makes (`undefined`: counted, not stepped).
  const feedFrom = <T>(
    items: ReadonlyArray<T>,
    from: number,
    seenAt: number | undefined,
    typeOf: (item: T) => string,
    inputOf: (item: T) => WatchState.Input<RawBody> | undefined,
  ): Effect.Effect<WatchState.Action | undefined> =>
    Effect.withFiber((fiber) => {
      const context = fiber.context;
      if (seenAt !== undefined) metrics.seenUnsafe(seenAt, context);
      const ready: Array<Item> = [];
      const offered = (action: WatchState.Action | undefined) =>
        ready.length === 0 ? Effect.succeed(action) : Effect.as(Queue.offerAll(queue, ready), action);
      for (let i = from; i < items.length; i++) {
        const item = items[i] as T;
        metrics.eventUnsafe(typeOf(item), context);
        const input = inputOf(item);
        if (input === undefined) continue;
        const result = step(input);
        const action = result.action._tag === "Continue" ? undefined : result.action;
        if (!result.emit.every((output) => output._tag === "Event")) {
          const rest =
            action === undefined
              ? feedFrom(items, i + 1, undefined, typeOf, inputOf)
              : Effect.succeed(action);
          return Effect.andThen(offered(undefined), Effect.andThen(emit(result.emit), rest));
        }
        for (const output of result.emit) {
          if (output._tag === "Event") known?.seen(output.type, output.object);
          ready.push(output);
        }
        if (action !== undefined) return offered(action);
      }
      return offered(undefined);
    });

  const eventType = (event: RawWatchEvent) => event.type;
  const eventInput = (event: RawWatchEvent): WatchState.Input<RawBody> => {
    const input = toInput(event);
    // Another shard's object only moves the resourceVersion on, like a bookmark.
    return input._tag === "Event" && shard !== undefined && !shard.keep(input.object)
      ? { _tag: "Bookmark", resourceVersion: input.resourceVersion }
      : input;
  };
  const listType = () => "LIST";

  return {
    state: () => state,
    feed,
    feedChunk: (events, seenAt) => feedFrom(events, 0, seenAt, eventType, eventInput),
    feedPage: (page, seenAt) =>
      Effect.asVoid(
        feedFrom(page.items ?? [], 0, seenAt, listType, (item) =>
          // Another shard's object is counted, not listed.
          shard === undefined || shard.keep(item)
            ? { _tag: "ListItem", object: fillKind(item, page.kind, page.apiVersion) }
            : undefined,
        ),
      ),
  };
};
