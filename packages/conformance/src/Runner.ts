/**
 * Replays sequences of steps against one server through a {@link Connection}, producing one raw
 * outcome per step. Requests are sent as written; watches run in the background until a collect
 * step gathers their events; polls repeat a GET until their condition holds. A network failure
 * becomes an outcome with status 0 (so one broken interaction does not hide the others).
 */
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type { Connection, ConnectionError, OpenWatch } from "./Connection.ts";
import {
  type CollectStep,
  type Dynamic,
  type Earlier,
  id,
  type Outcome,
  type PollStep,
  type Sequence,
  type Step,
  type WatchStep,
} from "./Interaction.ts";

const parse = (text: string): unknown => {
  if (text === "") return "";
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

const watchPath = (path: string): string => `${path}${path.includes("?") ? "&" : "?"}watch=1`;

const POLL_INTERVAL_MS = 200;

const collect = (step: CollectStep, watch: OpenWatch | undefined) =>
  Effect.gen(function* () {
    if (watch === undefined) return { status: 0, mediaType: "", body: `no watch named ${step.id} is open` };
    const started = yield* Clock.currentTimeMillis;
    for (;;) {
      const now = yield* Clock.currentTimeMillis;
      if (watch.events().length >= step.events || watch.ended() || now - started >= step.timeoutMs) break;
      yield* Effect.sleep("20 millis");
    }
    watch.close();
    const status = watch.status() ?? 0;
    if (status !== 200)
      return { status, mediaType: "application/json", body: parse(watch.errorText() ?? "") };
    return { status, mediaType: "application/json", body: watch.events() };
  });

/** Starts a watch and waits (up to 10s) for its response headers: the outcome is their status. */
const opened = (connection: Connection, watches: Map<string, OpenWatch>, step: WatchStep, path: string) =>
  Effect.gen(function* () {
    watches.get(step.id)?.close();
    const watch = connection.watch(watchPath(path), step.accept);
    watches.set(step.id, watch);
    for (let waited = 0; watch.status() === undefined && !watch.ended() && waited < 10_000; waited += 20) {
      yield* Effect.sleep("20 millis");
    }
    return { status: watch.status() ?? 0, mediaType: watch.mediaType(), body: "" };
  });

const poll = (connection: Connection, step: PollStep, maxPollMs: number) =>
  Effect.gen(function* () {
    const timeoutMs = Math.min(step.timeoutMs, maxPollMs);
    const started = yield* Clock.currentTimeMillis;
    for (;;) {
      const response = yield* connection.request(
        step.method ?? "GET",
        step.path,
        step.body === undefined
          ? undefined
          : { text: JSON.stringify(step.body), contentType: "application/json" },
      );
      const body = parse(response.text);
      const now = yield* Clock.currentTimeMillis;
      if (step.until(response.status, body) || now - started >= timeoutMs) {
        return { status: response.status, mediaType: response.mediaType, body, warnings: response.warnings };
      }
      yield* Effect.sleep(`${POLL_INTERVAL_MS} millis`);
    }
  });

const resolve = <A>(value: Dynamic<A>, earlier: Earlier): A =>
  typeof value === "function" ? (value as (earlier: Earlier) => A)(earlier) : value;

/** What a step produced, before it is named and narrowed. */
type Raw = Omit<Outcome, "interaction" | "millis">;

const runStep = (
  connection: Connection,
  watches: Map<string, OpenWatch>,
  step: Step,
  earlier: Earlier,
  maxPollMs: number,
): Effect.Effect<Raw, ConnectionError> => {
  switch (step.kind) {
    case "request": {
      const json = step.bodyFrom !== undefined ? step.bodyFrom(earlier) : step.body;
      const body =
        step.rawBody !== undefined
          ? { text: step.rawBody, contentType: step.contentType ?? "application/json" }
          : json !== undefined
            ? { text: JSON.stringify(json), contentType: step.contentType ?? "application/json" }
            : undefined;
      return connection.request(step.method, resolve(step.path, earlier), body, step.accept).pipe(
        Effect.map((r) => ({
          status: r.status,
          mediaType: r.mediaType,
          body: parse(r.text),
          warnings: r.warnings,
        })),
      );
    }
    case "watch":
      return opened(connection, watches, step, resolve(step.path, earlier));
    case "collect":
      return collect(step, watches.get(step.id)).pipe(
        Effect.ensuring(Effect.sync(() => watches.delete(step.id))),
      );
    case "poll":
      return poll(connection, step, maxPollMs);
  }
};

/**
 * Runs one sequence; the outcomes are in step order and carry their interaction ids. A watch
 * step's outcome is the status of the watch response; its events are the collect step's.
 * `maxPollMs` caps every poll's timeout (for servers known to answer at once).
 *
 * @example
 * ```ts
 * const outcomes = yield* Runner.run(connection, { name: "version", steps: [
 *   { kind: "request", name: "get", method: "GET", path: "/version" } ] })
 * ```
 */
export const run = (
  connection: Connection,
  sequence: Sequence,
  options: { readonly maxPollMs?: number } = {},
): Effect.Effect<ReadonlyArray<Outcome>> =>
  Effect.gen(function* () {
    const watches = new Map<string, OpenWatch>();
    const outcomes: Array<Outcome> = [];
    const bodies = new Map<string, unknown>();
    const earlier: Earlier = (name) => bodies.get(name);
    for (const step of sequence.steps) {
      const started = yield* Clock.currentTimeMillis;
      const result = yield* runStep(
        connection,
        watches,
        step,
        earlier,
        options.maxPollMs ?? Number.POSITIVE_INFINITY,
      ).pipe(Effect.catch((error) => Effect.succeed<Raw>({ status: 0, mediaType: "", body: error.message })));
      bodies.set(step.name, result.body);
      const body = step.select === undefined ? result.body : step.select(result.body);
      const millis = (yield* Clock.currentTimeMillis) - started;
      outcomes.push({ interaction: id(sequence.name, step.name), ...result, body, millis });
    }
    for (const watch of watches.values()) watch.close();
    return outcomes;
  });
