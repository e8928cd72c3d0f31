/**
 * The operator's log output (Kopf's `kopf._core.engines.logging` and CLI options, docs/guide/cli.md,
 * docs/behaviour/events-and-logs.md#logs-as-events, docs/behaviour/events-and-logs.md#log-formats) as Effect loggers: the `plain`, `full` and `json` formats, the `[ns/name] `
 * object prefix, the JSON object reference under a configurable key, and the mapping of levels
 * to Kopf's names and JSON severities.
 *
 * Log lines about an object carry its reference as the `kopf.object` log annotation (see
 * {@link annotateObject}); the logger name (`kopf.objects`, `kopf.activities.startup`, …) is the
 * `kopf.logger` annotation; lines from local loggers (never posted as events) carry `kopf.local`.
 *
 * Handlers get a synchronous `Logger` (the registry's interface) bound to the object through
 * {@link handlerLogger}: its calls go through the same Effect loggers.
 */
import type { Logger as HandlerLogger } from "@kopf/registry";
import { IsoTime, type ObjectReference } from "@kopf/structs";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as LogLevel from "effect/LogLevel";
import * as Option from "effect/Option";
import * as References from "effect/References";
import * as Tracer from "effect/Tracer";
import { logInFiber } from "./internal/fiberLogging.ts";

/** The output formats of `--log-format`. */
export type Format = "plain" | "full" | "json";

/** The annotation holding the object reference of a log line. */
export const OBJECT = "kopf.object";
/** The annotation holding the logger name. */
export const LOGGER = "kopf.logger";
/** The annotation marking lines of local loggers (never posted as events). */
export const LOCAL = "kopf.local";

/**
 * Python's level numbers for Effect's levels.
 *
 * @example
 * levelNumber("Warn") // 30
 */
export const levelNumber = (level: LogLevel.LogLevel): number => {
  switch (level) {
    case "All":
    case "Trace":
    case "Debug":
      return 10;
    case "Info":
      return 20;
    case "Warn":
      return 30;
    case "Error":
      return 40;
    default:
      return 50;
  }
};

/**
 * Python's level names (`DEBUG`, `INFO`, `WARNING`, `ERROR`, `CRITICAL`).
 *
 * @example
 * levelName("Warn") // "WARNING"
 */
export const levelName = (level: LogLevel.LogLevel): string => {
  const n = levelNumber(level);
  return n <= 10 ? "DEBUG" : n <= 20 ? "INFO" : n <= 30 ? "WARNING" : n <= 40 ? "ERROR" : "CRITICAL";
};

/**
 * The JSON severity of a Python level number (docs/behaviour/events-and-logs.md#log-formats): ≤10 debug, ≤20 info, ≤30 warn, ≤40 error,
 * above fatal.
 *
 * @example
 * severity(25) // "warn"
 */
export const severity = (levelno: number): "debug" | "info" | "warn" | "error" | "fatal" =>
  levelno <= 10
    ? "debug"
    : levelno <= 20
      ? "info"
      : levelno <= 30
        ? "warn"
        : levelno <= 40
          ? "error"
          : "fatal";

/**
 * The object prefix: `[namespace/name] ` or `[name] ` (nothing without a name).
 *
 * @example
 * prefixOf({ name: "name1", namespace: "namespace1" }) // "[namespace1/name1] "
 */
export const prefixOf = (ref: Partial<ObjectReference> | undefined): string => {
  if (ref?.name === undefined || ref.name === null) return "";
  return ref.namespace ? `[${ref.namespace}/${ref.name}] ` : `[${ref.name}] `;
};

/** How lines are formatted. */
export interface FormatOptions {
  readonly format: Format;
  /** Prefix object lines with `[ns/name] `. Default: on for plain/full, off for json. */
  readonly prefix?: boolean | undefined;
  /** The key of the object reference in JSON lines. Default `object`. */
  readonly refkey?: string | undefined;
}

/** One log event, as the formatter sees it. */
export interface Record {
  readonly message: string;
  readonly level: LogLevel.LogLevel;
  readonly date: Date;
  readonly name: string;
  readonly ref: Partial<ObjectReference> | undefined;
  /** The failure's rendering (a traceback), if any. */
  readonly failure: string | undefined;
  /** The span the line was logged in (its trace and span ids), if any. */
  readonly trace?: { readonly traceId: string; readonly spanId: string } | undefined;
}

const pad = (text: string, width: number): string => text.slice(0, width).padEnd(width);
const two = (n: number): string => String(n).padStart(2, "0");
const asctime = (d: Date): string =>
  `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ` +
  `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())},${String(d.getUTCMilliseconds()).padStart(3, "0")}`;

/**
 * Formats a record as Kopf's CLI does.
 *
 * @example
 * formatRecord({ format: "full" }, record)
 * // "[2020-01-01 00:00:00,000] kopf.objects         [INFO    ] [ns1/name1] Handler 'create_fn' succeeded."
 */
export const formatRecord = (options: FormatOptions, record: Record): string => {
  const prefixed = options.prefix ?? options.format !== "json";
  const text = `${prefixed ? prefixOf(record.ref) : ""}${record.message}`;
  if (options.format === "json") {
    const line: { [key: string]: unknown } = {
      message: text,
      timestamp: IsoTime.format(IsoTime.fromMillis(record.date.getTime())),
      severity: severity(levelNumber(record.level)),
    };
    // python-json-logger puts the traceback under `exc_info`.
    if (record.failure !== undefined) line.exc_info = record.failure;
    if (record.ref !== undefined) line[options.refkey ?? "object"] = record.ref;
    // The trace context, as OpenTelemetry's log data model names it.
    if (record.trace !== undefined) {
      line.trace_id = record.trace.traceId;
      line.span_id = record.trace.spanId;
    }
    return JSON.stringify(line);
  }
  const withFailure = record.failure === undefined ? text : `${text}\n${record.failure}`;
  if (options.format === "plain") return withFailure;
  return `[${asctime(record.date)}] ${pad(record.name, 20)} [${pad(levelName(record.level), 8)}] ${withFailure}`;
};

const messageText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message];
  return parts
    .map((part) => (typeof part === "string" ? part : (JSON.stringify(part) ?? String(part))))
    .join(" ");
};

/**
 * The record of an Effect log event (message, level, logger name, object, failure).
 *
 * @example
 * Logger.make((event) => write(formatRecord(options, recordOf(event))))
 */
export const recordOf = (options: Logger.Options<unknown>): Record => {
  const annotations = options.fiber.getRef(References.CurrentLogAnnotations);
  const ref = annotations[OBJECT] as Partial<ObjectReference> | undefined;
  // `logger` is what the execution engine's own loggers (activities) are annotated with.
  const name = annotations[LOGGER] ?? annotations.logger;
  return {
    message: messageText(options.message),
    level: options.logLevel,
    date: options.date,
    name: typeof name === "string" ? name : ref !== undefined ? "kopf.objects" : "kopf",
    ref,
    failure: options.cause.reasons.length > 0 ? Cause.pretty(options.cause) : undefined,
    // With the tracer off, spans are no-ops whose ids lead nowhere.
    trace: options.fiber.getRef(References.TracerEnabled)
      ? Option.match(Context.getOption(options.fiber.context, Tracer.ParentSpan), {
          onNone: () => undefined,
          onSome: (span) => ({ traceId: span.traceId, spanId: span.spanId }),
        })
      : undefined,
  };
};

/**
 * Whether a log event comes from a local logger (never posted as an event).
 *
 * @example
 * Logger.make((event) => { if (!Logging.isLocal(event)) post(event) })
 */
export const isLocal = (options: Logger.Options<unknown>): boolean =>
  options.fiber.getRef(References.CurrentLogAnnotations)[LOCAL] === true;

/**
 * An Effect logger writing formatted lines to `write` (stderr in the CLI, an array in tests).
 *
 * @example
 * ```ts
 * const lines: string[] = []
 * Effect.logInfo("hello").pipe(Effect.provide(Logger.layer([Logging.logger({ format: "plain" }, (l) => lines.push(l))])))
 * ```
 */
export const logger = (options: FormatOptions, write: (line: string) => void): Logger.Logger<unknown, void> =>
  Logger.make((event) => write(formatRecord(options, recordOf(event))));

/**
 * Runs `effect` with its log lines about the object `ref` (and, optionally, a logger name).
 *
 * @example
 * ```ts
 * yield* Effect.logInfo("hello").pipe(Logging.annotateObject({ name: "n1", namespace: "ns1" })) // [ns1/n1] hello
 * ```
 */
export const annotateObject =
  (ref: ObjectReference, name = "kopf.objects") =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.annotateLogs(effect, { [OBJECT]: ref, [LOGGER]: name });

/**
 * A synchronous handler logger (the registry's `Logger`) writing through the Effect loggers of
 * `context`, with the annotations in force when it is made plus `extra`. A line logged from the
 * fiber whose context is `context` is written in that fiber; from anywhere else, in a fiber of its
 * own.
 *
 * @example
 * ```ts
 * const context = yield* Effect.context<never>()
 * const logger = Logging.handlerLogger(context)
 * logger.info("Creating the pod")
 * ```
 */
export const handlerLogger = (
  context: Context.Context<never>,
  extra: { readonly [key: string]: unknown } = {},
): HandlerLogger => {
  const run = Effect.runSyncWith(context);
  // Lines below the level are dropped before a fiber is run for them (handlers log per object).
  const minimum = Context.get(context, References.MinimumLogLevel);
  // No extra annotations (the usual case): the line is logged as it is, with no context change.
  const annotated = Object.keys(extra).length === 0 ? undefined : extra;
  const emit = (level: LogLevel.Severity, message: string, args: ReadonlyArray<unknown>) => {
    if (LogLevel.isGreaterThan(minimum, level)) return;
    try {
      // Called from the fiber these services are of (the framework's lines about a handler, a
      // synchronous handler's own): written in that fiber, which has the loggers, references and
      // annotations a fiber run for the line would have.
      const current = annotated === undefined ? Fiber.getCurrent() : undefined;
      if (current?.context === context && logInFiber(current, level, [message, ...args])) return;
      const line = Effect.logWithLevel(level)(message, ...args);
      run(annotated === undefined ? line : Effect.annotateLogs(line, annotated));
    } catch {
      // Logging never breaks a handler.
    }
  };
  return {
    debug: (message, ...args) => emit("Debug", message, args),
    info: (message, ...args) => emit("Info", message, args),
    warning: (message, ...args) => emit("Warn", message, args),
    error: (message, ...args) => emit("Error", message, args),
    exception: (message, error) => emit("Error", message, error === undefined ? [] : [Cause.die(error)]),
  };
};

/** How the operator logs (the CLI's `--log-format`, `--log-prefix`, `--log-refkey`, verbosity). */
export interface LayerOptions extends FormatOptions {
  /** The least level written: `Debug` for `--verbose`/`--debug`, `Warn` for `--quiet`. Default `Info`. */
  readonly level?: LogLevel.LogLevel | undefined;
  /** Where lines go. */
  readonly write: (line: string) => void;
}

/**
 * Replaces the loggers with the operator's formatter and sets the minimum level.
 *
 * @example
 * ```ts
 * program.pipe(Effect.provide(Logging.layer({ format: "full", level: "Debug", write: (l) => process.stderr.write(`${l}\n`) })))
 * ```
 */
export const layer = (options: LayerOptions): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.layer([logger(options, options.write)]),
    Layer.succeed(References.MinimumLogLevel, options.level ?? "Info"),
  );
