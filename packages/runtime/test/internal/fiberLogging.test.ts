// Covers the log lines written in a running fiber (src/internal/fiberLogging.ts) and the handler
// loggers' choice between that and a fiber of the line's own (src/Logging.ts, handlerLogger): the
// same loggers, message, cause and annotations either way.
import { assert, describe, it } from "@effect/vitest";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Logger from "effect/Logger";
import { logInFiber } from "../../src/internal/fiberLogging.ts";
import * as Logging from "../../src/Logging.ts";

interface Seen {
  readonly fiberId: number;
  readonly message: unknown;
  readonly cause: Cause.Cause<unknown>;
  readonly line: string;
}

/** A logger that keeps what each line was given, with the line as the plain format writes it. */
const recording = () => {
  const seen: Array<Seen> = [];
  const format = Logging.logger({ format: "plain" }, (line) => {
    const last = seen.at(-1);
    if (last !== undefined && last.line === "") seen[seen.length - 1] = { ...last, line };
  });
  const logger = Logger.make((options) => {
    seen.push({ fiberId: options.fiber.id, message: options.message, cause: options.cause, line: "" });
    format.log(options);
  });
  return { seen, layer: Logger.layer([logger]) };
};

const currentId = (): number => Fiber.getCurrent()?.id ?? -1;

describe("fiberLogging", () => {
  it.effect("a handler logger called in its services' fiber writes the line in that fiber", () => {
    const { seen, layer } = recording();
    return Effect.gen(function* () {
      const context = yield* Effect.context<never>();
      const logger = Logging.handlerLogger(context);
      const id = yield* Effect.sync(() => {
        logger.info("Handler 'create_fn' succeeded.");
        return currentId();
      });
      assert.strictEqual(seen.length, 1);
      assert.strictEqual(seen[0]?.fiberId, id);
      assert.deepStrictEqual(seen[0]?.message, ["Handler 'create_fn' succeeded."]);
      assert.strictEqual(seen[0]?.cause.reasons.length, 0);
      assert.strictEqual(seen[0]?.line, "[ns1/name1] Handler 'create_fn' succeeded.");
    }).pipe(Logging.annotateObject({ name: "name1", namespace: "ns1" }), Effect.provide(layer));
  });

  it.effect("called outside any fiber, the line runs in a fiber of its own with the same annotations", () => {
    const { seen, layer } = recording();
    return Effect.gen(function* () {
      const context = yield* Effect.context<never>();
      const logger = Logging.handlerLogger(context);
      const id = yield* Effect.sync(currentId);
      // A callback of Node.js's own, as a handler's code after an `await` runs: no fiber is running.
      yield* Effect.promise(
        () =>
          new Promise<void>((resolve) =>
            setImmediate(() => {
              logger.warning("later");
              resolve();
            }),
          ),
      );
      assert.strictEqual(seen.length, 1);
      assert.notStrictEqual(seen[0]?.fiberId, id);
      assert.strictEqual(seen[0]?.line, "[ns1/name1] later");
    }).pipe(Logging.annotateObject({ name: "name1", namespace: "ns1" }), Effect.provide(layer));
  });

  it.effect("called from another fiber, the line keeps the logger's own annotations", () => {
    const { seen, layer } = recording();
    return Effect.gen(function* () {
      const logger = yield* Effect.context<never>().pipe(
        Effect.map((context) => Logging.handlerLogger(context)),
        Logging.annotateObject({ name: "mine", namespace: "ns1" }),
      );
      yield* Effect.sync(() => logger.info("hello")).pipe(
        Logging.annotateObject({ name: "other", namespace: "ns2" }),
      );
      assert.strictEqual(seen[0]?.line, "[ns1/mine] hello");
    }).pipe(Effect.provide(layer));
  });

  it.effect("a cause among the arguments is the line's cause, not a part of its message", () => {
    const { seen, layer } = recording();
    return Effect.gen(function* () {
      const context = yield* Effect.context<never>();
      const logger = Logging.handlerLogger(context);
      yield* Effect.sync(() => logger.exception("failed", new Error("boom")));
      assert.deepStrictEqual(seen[0]?.message, ["failed"]);
      assert.strictEqual(seen[0]?.cause.reasons.length, 1);
      assert.match(seen[0]?.line ?? "", /^failed\n.*boom/s);
    }).pipe(Effect.provide(layer));
  });

  it.effect("two causes are not written in place: the caller's Effect.log combines them", () => {
    const { seen, layer } = recording();
    return Effect.gen(function* () {
      const written = yield* Effect.withFiber((fiber) =>
        Effect.succeed(logInFiber(fiber, "Info", ["two", Cause.fail("a"), Cause.fail("b")])),
      );
      assert.isFalse(written);
      assert.strictEqual(seen.length, 0);
      const context = yield* Effect.context<never>();
      yield* Effect.sync(() => Logging.handlerLogger(context).error("two", Cause.fail("a"), Cause.fail("b")));
      assert.strictEqual(seen.length, 1);
      assert.deepStrictEqual(seen[0]?.message, ["two"]);
      assert.strictEqual(seen[0]?.cause.reasons.length, 2);
    }).pipe(Effect.provide(layer));
  });

  it.effect("in place, the loggers get the fiber's clock time and the level", () => {
    const dates: Array<number> = [];
    const levels: Array<string> = [];
    const logger = Logger.make((options) => {
      dates.push(options.date.getTime());
      levels.push(options.logLevel);
    });
    return Effect.gen(function* () {
      const now = yield* Effect.clockWith((clock) => Effect.succeed(clock.currentTimeMillisUnsafe()));
      yield* Effect.withFiber((fiber) => Effect.succeed(logInFiber(fiber, "Warn", ["x"])));
      assert.deepStrictEqual(dates, [now]);
      assert.deepStrictEqual(levels, ["Warn"]);
    }).pipe(Effect.provide(Logger.layer([logger])));
  });
});
