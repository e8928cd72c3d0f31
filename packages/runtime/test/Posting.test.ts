// Covers event posting (docs/behaviour/events-and-logs.md#posting-events, docs/behaviour/events-and-logs.md#logs-as-events) against the in-process emulator: Kopf's
// gating of event/info/warn/exception, nested object lists, message composition for exceptions,
// no events about v1/Event, and the log-to-events bridge (types by level, reason Logging,
// threshold, local loggers and disabled posting never post).
import { assert, describe, it } from "@effect/vitest";
import { OperatorSettings, Settings } from "@kopf/settings";
import type { RawBody } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import { TestClock } from "effect/testing";
import * as Logging from "../src/Logging.ts";
import * as Posting from "../src/Posting.ts";
import * as Cluster from "./fixtures/Cluster.ts";

const body = (name: string): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: "ns1", uid: `uid-${name}` },
});

const settle = Effect.gen(function* () {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow;
  yield* TestClock.adjust(1);
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow;
});

const posted = (log: Cluster.RequestLog) =>
  log.events().map((r) => {
    const b = r.body as { type: string; reason: string; message: string; involvedObject: { name: string } };
    return `${b.type} ${b.reason} ${b.involvedObject.name}: ${b.message}`;
  });

const withPosting = (
  overrides: Partial<OperatorSettings["posting"]>,
  test: (
    events: Posting.Events,
    poster: Posting.Poster,
    log: Cluster.RequestLog,
  ) => Effect.Effect<void, never, never>,
) => {
  const log = new Cluster.RequestLog();
  const settings = Settings.make({ posting: overrides });
  return Effect.gen(function* () {
    yield* Cluster.setup();
    const current = settings._tag === "Success" ? settings.success : Settings.defaults;
    const poster = yield* Posting.make;
    yield* test(
      Posting.events(poster, () => current),
      poster,
      log,
    ).pipe(Effect.provideService(OperatorSettings, current));
  }).pipe(Effect.scoped, Effect.provide(Cluster.layer(log)));
};

describe("Posting", () => {
  it.effect("ambient posting calls are the latest running operator's, until it stops", () =>
    withPosting({}, (events) =>
      Effect.gen(function* () {
        assert.isFalse(Posting.isRunning(events));
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Posting.registerAmbient(events);
            assert.isTrue(Posting.isRunning(events));
            assert.strictEqual(Posting.ambient(), events);
          }),
        );
        assert.isFalse(Posting.isRunning(events));
        assert.notStrictEqual(Posting.ambient(), events);
      }),
    ),
  );

  it.effect("info, warn, exception and event post Kopf's events, for nested lists of objects", () =>
    withPosting({}, (events, _poster, log) =>
      Effect.gen(function* () {
        events.info(body("a"), { reason: "Created", message: "hello" });
        events.warn([body("b"), [body("c")]], { reason: "Careful" });
        events.exception(body("a"), { message: "Oops:", exc: new TypeError("boom") });
        events.exception(body("a"), { reason: "Custom", exc: new Error("bad") });
        events.event(body("a"), { type: "Custom", reason: "Any", message: "m" });
        yield* settle;
        assert.deepStrictEqual(posted(log), [
          "Normal Created a: hello",
          "Warning Careful b: ",
          "Warning Careful c: ",
          "Error TypeError a: Oops: boom",
          "Error Custom a: bad",
          "Custom Any a: m",
        ]);
        const first = log.events()[0]?.body as Record<string, unknown>;
        assert.deepStrictEqual(first.source, { component: "kopf" });
        assert.deepStrictEqual(first.involvedObject, {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          name: "a",
          uid: "uid-a",
          namespace: "ns1",
        });
      }),
    ),
  );

  it.effect("posting disabled: only warn posts (Kopf's quirk)", () =>
    withPosting({ enabled: false }, (events, _poster, log) =>
      Effect.gen(function* () {
        events.info(body("a"), { reason: "R" });
        events.exception(body("a"), { exc: new Error("x") });
        events.event(body("a"), { type: "T", reason: "R" });
        events.warn(body("a"), { reason: "W" });
        yield* settle;
        assert.deepStrictEqual(posted(log), ["Warning W a: "]);
      }),
    ),
  );

  it.effect("the level gates info (and warn, exception)", () =>
    withPosting({ level: "Error" }, (events, _poster, log) =>
      Effect.gen(function* () {
        events.info(body("a"), { reason: "I" });
        events.warn(body("a"), { reason: "W" });
        events.exception(body("a"), { reason: "E", message: "m" });
        yield* settle;
        assert.deepStrictEqual(posted(log), ["Error E a: m"]);
      }),
    ),
  );

  it.effect("no events about v1/Event objects", () =>
    withPosting({}, (events, _poster, log) =>
      Effect.gen(function* () {
        events.info(
          { apiVersion: "v1", kind: "Event", metadata: { name: "e", namespace: "ns1" } },
          { reason: "R" },
        );
        yield* settle;
        assert.deepStrictEqual(posted(log), []);
      }),
    ),
  );

  it.effect.each([
    [{ loggers: true }, ["Debug", "Info", "Warn", "Error", "Fatal"], ["Normal", "Warning", "Error", "Fatal"]],
    [{ loggers: true, level: "Debug" as const }, ["Debug", "Info"], ["Debug", "Normal"]],
    [{ loggers: true, level: "Warn" as const }, ["Info", "Warn"], ["Warning"]],
    [{ loggers: false }, ["Info", "Error"], []],
    [{ loggers: true, enabled: false }, ["Info", "Error"], []],
  ] as const)("the log bridge with %j posts %j as %j", ([posting, levels, types]) =>
    withPosting(posting, (_events, poster, log) =>
      Effect.gen(function* () {
        const current = yield* OperatorSettings;
        const program = Effect.gen(function* () {
          for (const level of levels) yield* Effect.logWithLevel(level)("hello %s", "world");
          yield* Effect.logError("local").pipe(Effect.annotateLogs(Logging.LOCAL, true));
          yield* Effect.logError("no object").pipe(Effect.annotateLogs(Logging.OBJECT, undefined));
        }).pipe(
          Logging.annotateObject({
            apiVersion: "kopf.dev/v1",
            kind: "KopfExample",
            name: "a",
            namespace: "ns1",
          }),
          Effect.provide(Logger.layer([Posting.bridge(poster, () => current)])),
          Effect.provideService(References.MinimumLogLevel, "Debug"),
        );
        yield* program;
        yield* settle;
        assert.deepStrictEqual(
          posted(log),
          types.map((t) => `${t} Logging a: hello %s world`),
        );
      }),
    ),
  );
});
