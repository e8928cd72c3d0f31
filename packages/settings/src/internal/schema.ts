/**
 * The validating schema of the whole settings tree. Every field carries a message saying what
 * it expects, so a rejected value is reported as `path: expected …` whatever made it invalid
 * (a wrong type, NaN, a negative number, an empty string).
 */
import type { DiffBaseStorage, ProgressStorage } from "@kopf/storage";
import * as Schema from "effect/Schema";

const expecting = (what: string) => ({ message: `expected ${what}` });

const finite = (what: string) =>
  Schema.Number.annotate(expecting(what)).pipe(Schema.check(Schema.isFinite(expecting(what))));

const nonNegative = (what = "a non-negative number") =>
  finite(what).pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0, expecting(what))));

const positive = (what = "a positive number") =>
  finite(what).pipe(Schema.check(Schema.isGreaterThan(0, expecting(what))));

const integer = (what = "an integer") => finite(what).pipe(Schema.check(Schema.isInt(expecting(what))));

const atLeast = (minimum: number, what: string) =>
  integer(what).pipe(Schema.check(Schema.isGreaterThanOrEqualTo(minimum, expecting(what))));

const orNull = <S extends Schema.Top>(make: (what: string) => S, what: string) =>
  Schema.NullOr(make(`${what} or null`)).annotate(expecting(`${what} or null`));

const boolean = Schema.Boolean.annotate(expecting("a boolean"));

const nonEmptyString = (what = "a non-empty string") =>
  Schema.String.annotate(expecting(what)).pipe(Schema.check(Schema.isMinLength(1, expecting(what))));

const delays = (what: string) =>
  Schema.Array(nonNegative("a non-negative number")).annotate(expecting(`a list of ${what}`));

const group = <F extends Schema.Struct.Fields>(name: string, fields: F) =>
  Schema.Struct(fields).annotate(expecting(`an object of ${name} settings`));

const hasMethods =
  <T extends object>(methods: ReadonlyArray<string>) =>
  (u: unknown): u is T =>
    isObjectLike(u) &&
    methods.every((method) => typeof (u as Record<string, unknown>)[method] === "function");

const storage = <T extends object>(kind: string, methods: ReadonlyArray<string>) =>
  Schema.declare(hasMethods<T>(methods), expecting(`a ${kind} storage (with ${methods.join(", ")})`));

const logLevels = ["All", "Trace", "Debug", "Info", "Warn", "Error", "Fatal", "None"] as const;

const isObjectLike = (u: unknown): u is object =>
  (typeof u === "object" && u !== null) || typeof u === "function";

/** The schema of the full settings tree (every field required). */
export const OperatorSettingsSchema = Schema.Struct({
  process: group("process", {
    ultimateExitingTimeout: orNull(nonNegative, "a non-negative number"),
  }),
  posting: group("posting", {
    enabled: boolean,
    loggers: boolean,
    level: Schema.Literals(logLevels).annotate(
      expecting(`one of ${logLevels.map((level) => JSON.stringify(level)).join(", ")}`),
    ),
    reportingComponent: nonEmptyString(),
    reportingInstance: nonEmptyString(),
    eventNamePrefix: nonEmptyString(),
  }),
  peering: group("peering", {
    name: nonEmptyString(),
    stealth: boolean,
    priority: integer(),
    lifetime: positive(),
    mandatory: boolean,
    standalone: boolean,
    clusterwide: boolean,
  }),
  scaling: group("scaling", {
    mode: Schema.Literals(["single", "leader-election", "sharding"]).annotate(
      expecting('one of "single", "leader-election", "sharding"'),
    ),
    leaseName: nonEmptyString(),
    leaseNamespace: orNull(nonEmptyString, "a non-empty string"),
    leaseDuration: atLeast(1, "a whole number of seconds of at least 1"),
    renewDeadline: positive(),
    retryPeriod: positive(),
    watch: Schema.Literals(["auto", "own-shards", "all"]).annotate(
      expecting('one of "auto", "own-shards", "all"'),
    ),
  }),
  watching: group("watching", {
    serverTimeout: orNull(nonNegative, "a non-negative number"),
    clientTimeout: orNull(nonNegative, "a non-negative number"),
    connectTimeout: orNull(nonNegative, "a non-negative number"),
    reconnectBackoff: nonNegative(),
    inactivityTimeout: positive(),
  }),
  queueing: group("queueing", {
    workerLimit: orNull((what) => atLeast(1, what), "a positive integer"),
    cycleLimit: orNull((what) => atLeast(1, what), "a positive integer"),
    adaptiveCycleLimit: boolean,
    idleTimeout: nonNegative(),
    exitTimeout: nonNegative(),
    errorDelays: delays("non-negative numbers"),
    batchWindow: nonNegative(),
  }),
  scanning: group("scanning", {
    disabled: boolean,
  }),
  admission: group("admission", {
    server: Schema.NullOr(
      Schema.declare(isObjectLike, expecting("a webhook server or tunnel object or null")),
    ).annotate(expecting("a webhook server or tunnel object or null")),
    managed: orNull(nonEmptyString, "a non-empty string"),
  }),
  execution: group("execution", {
    defaultBackoff: nonNegative(),
    maxWorkers: orNull((what) => atLeast(1, what), "a positive integer"),
  }),
  networking: group("networking", {
    requestTimeout: orNull(nonNegative, "a non-negative number"),
    connectTimeout: orNull(nonNegative, "a non-negative number"),
    errorBackoffs: delays("non-negative numbers"),
    enforceRetryAfter: boolean,
    trustEnv: boolean,
    rateLimit: Schema.NullOr(
      Schema.Struct({ qps: positive(), burst: atLeast(1, "an integer of at least 1") }).annotate(
        expecting("an object { qps, burst }"),
      ),
    ).annotate(expecting("an object { qps, burst } or null")),
  }),
  persistence: group("persistence", {
    finalizer: nonEmptyString(),
    progressStorage: storage<ProgressStorage.ProgressStorage>("progress", [
      "fetch",
      "store",
      "purge",
      "touch",
      "clear",
      "flush",
    ]),
    diffbaseStorage: storage<DiffBaseStorage.DiffBaseStorage>("diff-base", ["build", "fetch", "store"]),
    consistencyTimeout: nonNegative(),
  }),
  background: group("background", {
    cancellationPolling: positive(),
    instantExitTimeout: orNull(nonNegative, "a non-negative number"),
    instantExitZeroTimeCycles: orNull((what) => atLeast(0, what), "a non-negative integer"),
  }),
}).annotate(expecting("an object of settings"));
