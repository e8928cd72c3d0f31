// Covers the log formats (docs/guide/cli.md, docs/behaviour/events-and-logs.md#log-formats): JSON severities by level number, object prefixes,
// the refkey, the full format's columns, and handler loggers writing through Effect's loggers
// with the object's annotations.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import * as Logging from "../src/Logging.ts";

const record = (overrides: Partial<Logging.Record> = {}): Logging.Record => ({
  message: "hello",
  level: "Info",
  date: new Date(Date.UTC(2020, 11, 31, 23, 59, 59, 123)),
  name: "kopf.objects",
  ref: { apiVersion: "v1", kind: "Pod", name: "name1", uid: "uid1", namespace: "namespace1" },
  failure: undefined,
  ...overrides,
});

describe("Logging", () => {
  it.each([
    [0, "debug"],
    [10, "debug"],
    [11, "info"],
    [20, "info"],
    [21, "warn"],
    [30, "warn"],
    [31, "error"],
    [40, "error"],
    [41, "fatal"],
    [999, "fatal"],
  ] as const)("level number %d ⇒ severity %s", (levelno, expected) => {
    assert.strictEqual(Logging.severity(levelno), expected);
  });

  it.each([
    [{ name: "name1", namespace: "namespace1" }, "[namespace1/name1] hello"],
    [{ name: "name1" }, "[name1] hello"],
    [undefined, "hello"],
  ])("plain prefix for %j", (ref, expected) => {
    assert.strictEqual(Logging.formatRecord({ format: "plain" }, record({ ref })), expected);
  });

  it("the full format has Kopf's columns", () => {
    assert.strictEqual(
      Logging.formatRecord({ format: "full" }, record({ level: "Warn" })),
      "[2020-12-31 23:59:59,123] kopf.objects         [WARNING ] [namespace1/name1] hello",
    );
    assert.strictEqual(
      Logging.formatRecord(
        { format: "full", prefix: false },
        record({ name: "kopf.activities.startup.long" }),
      ),
      "[2020-12-31 23:59:59,123] kopf.activities.star [INFO    ] hello",
    );
  });

  it.each([
    [undefined, "object"],
    ["k8s-obj", "k8s-obj"],
  ])("JSON lines carry message, timestamp, severity and the reference under the refkey %s", (refkey, key) => {
    const line = JSON.parse(Logging.formatRecord({ format: "json", refkey }, record()));
    assert.deepStrictEqual(line, {
      message: "hello",
      timestamp: "2020-12-31T23:59:59.123000+00:00",
      severity: "info",
      [key]: { apiVersion: "v1", kind: "Pod", name: "name1", uid: "uid1", namespace: "namespace1" },
    });
  });

  it("JSON lines carry the failure under exc_info; text lines append it", () => {
    const failed = record({ failure: "Error: boom\n    at somewhere" });
    const line = JSON.parse(Logging.formatRecord({ format: "json" }, failed));
    assert.strictEqual(line.message, "hello");
    assert.strictEqual(line.exc_info, "Error: boom\n    at somewhere");
    assert.strictEqual(
      Logging.formatRecord({ format: "plain" }, failed),
      "[namespace1/name1] hello\nError: boom\n    at somewhere",
    );
  });

  it("JSON lines are not prefixed unless asked", () => {
    assert.strictEqual(JSON.parse(Logging.formatRecord({ format: "json" }, record())).message, "hello");
    assert.strictEqual(
      JSON.parse(Logging.formatRecord({ format: "json", prefix: true }, record())).message,
      "[namespace1/name1] hello",
    );
  });

  it.effect("JSON lines logged in a span carry its trace_id and span_id; others do not", () => {
    const lines: Array<Record<string, unknown>> = [];
    return Effect.gen(function* () {
      yield* Effect.logInfo("outside");
      const ids = yield* Effect.gen(function* () {
        yield* Effect.logInfo("inside");
        const span = yield* Effect.currentSpan;
        return { trace_id: span.traceId, span_id: span.spanId };
      }).pipe(Effect.withSpan("a cycle"));
      assert.deepStrictEqual(
        lines.map((line) => [line.message, line.trace_id, line.span_id]),
        [
          ["outside", undefined, undefined],
          ["inside", ids.trace_id, ids.span_id],
        ],
      );
    }).pipe(
      Effect.provide(
        Logger.layer([Logging.logger({ format: "json" }, (line) => lines.push(JSON.parse(line)))]),
      ),
    );
  });

  it.effect("with the tracer off, lines logged in a (no-op) span carry no trace_id", () => {
    const lines: Array<Record<string, unknown>> = [];
    return Effect.gen(function* () {
      yield* Effect.logInfo("inside").pipe(Effect.withSpan("a cycle"));
      assert.deepStrictEqual(
        lines.map((line) => [line.message, line.trace_id, line.span_id]),
        [["inside", undefined, undefined]],
      );
    }).pipe(
      Effect.provide(
        Logger.layer([Logging.logger({ format: "json" }, (line) => lines.push(JSON.parse(line)))]),
      ),
      Effect.provideService(References.TracerEnabled, false),
    );
  });

  it.effect("the logger name comes from the kopf.logger (or logger) annotation", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      yield* Effect.logInfo("a").pipe(Effect.annotateLogs(Logging.LOGGER, "kopf.activities.startup"));
      yield* Effect.logInfo("b").pipe(Effect.annotateLogs("logger", "kopf.activities.cleanup"));
      yield* Effect.logInfo("c");
    }).pipe(
      Effect.provide(
        Logger.layer([Logging.logger({ format: "full" }, (line) => lines.push(line.slice(26, 46)))]),
      ),
      Effect.tap(() =>
        Effect.sync(() =>
          assert.deepStrictEqual(lines, [
            "kopf.activities.star",
            "kopf.activities.clea",
            "kopf                ",
          ]),
        ),
      ),
    );
  });

  it.effect("handler loggers write through the Effect loggers with the object's reference", () => {
    const lines: Array<string> = [];
    return Effect.gen(function* () {
      const context = yield* Effect.context<never>();
      const logger = Logging.handlerLogger(context);
      logger.info("Creating %s", "pod");
      logger.warning("careful");
      logger.exception("failed", new Error("boom"));
    }).pipe(
      Logging.annotateObject({ name: "name1", namespace: "ns1" }),
      Effect.provide(Logger.layer([Logging.logger({ format: "plain" }, (line) => lines.push(line))])),
      Effect.tap(() =>
        Effect.sync(() => {
          assert.strictEqual(lines[0], "[ns1/name1] Creating %s pod");
          assert.strictEqual(lines[1], "[ns1/name1] careful");
          assert.match(lines[2] ?? "", /^\[ns1\/name1\] failed\n.*boom/s);
        }),
      ),
    );
  });
});
