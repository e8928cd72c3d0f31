/**
 * Settings: the docs/guide/settings.md defaults table row by row (Kopf's tests/settings/test_defaults.py), merging
 * of overrides, validation errors naming the field's full path, Kopf's deprecated and alias
 * spellings, and the `OperatorSettings` reference and layer.
 */
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Logger from "effect/Logger";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import { OperatorSettings, RunOptions, Settings } from "../src/index.ts";

const pick = (tree: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], tree);

const made = (overrides: unknown): Settings.OperatorSettings => {
  const result = Settings.make(overrides as Settings.Overrides);
  if (Result.isFailure(result)) assert.fail(result.failure.message);
  return result.success;
};

const rejected = (overrides: unknown) => {
  const result = Settings.make(overrides as Settings.Overrides);
  if (Result.isSuccess(result)) return assert.fail("expected the settings to be rejected");
  return result.failure;
};

describe("defaults (docs/guide/settings.md)", () => {
  it.each([
    ["process.ultimateExitingTimeout", 600],
    ["posting.enabled", true],
    ["posting.loggers", false],
    ["posting.level", "Info"],
    ["posting.reportingComponent", "kopf"],
    ["posting.reportingInstance", "dev"],
    ["posting.eventNamePrefix", "kopf-event-"],
    ["peering.name", "default"],
    ["peering.stealth", false],
    ["peering.priority", 0],
    ["peering.lifetime", 60],
    ["peering.mandatory", false],
    ["peering.standalone", false],
    ["peering.clusterwide", false],
    ["watching.serverTimeout", null],
    ["watching.clientTimeout", null],
    ["watching.connectTimeout", null],
    ["watching.reconnectBackoff", 0.1],
    ["watching.inactivityTimeout", 70],
    ["queueing.workerLimit", null],
    ["queueing.cycleLimit", 32],
    ["queueing.adaptiveCycleLimit", true],
    ["queueing.idleTimeout", 5],
    ["queueing.exitTimeout", 2],
    ["queueing.errorDelays", [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610]],
    ["queueing.batchWindow", 0.1],
    ["scanning.disabled", false],
    ["admission.server", null],
    ["admission.managed", null],
    ["execution.defaultBackoff", 60],
    ["execution.maxWorkers", null],
    ["networking.requestTimeout", 300],
    ["networking.connectTimeout", null],
    ["networking.errorBackoffs", [1, 1, 2, 3, 5, 8, 13, 21]],
    ["networking.enforceRetryAfter", false],
    ["networking.trustEnv", false],
    ["networking.rateLimit", null],
    ["persistence.finalizer", "kopf.zalando.org/KopfFinalizerMarker"],
    ["persistence.consistencyTimeout", 5],
    ["background.cancellationPolling", 60],
    ["background.instantExitTimeout", null],
    ["background.instantExitZeroTimeCycles", 10],
  ])("%s = %j", (path, expected) => {
    assert.deepStrictEqual(pick(Settings.defaults, path), expected);
    assert.deepStrictEqual(pick(made({}), path), expected);
  });

  it("persistence.progressStorage is a SmartProgressStorage", () => {
    assert.strictEqual(
      (Settings.defaults.persistence.progressStorage as { _tag?: string })._tag,
      "SmartProgressStorage",
    );
  });

  it("make() without overrides is valid and equal to the defaults", () => {
    assert.deepStrictEqual(made(undefined), Settings.defaults);
  });

  it("has exactly Kopf's groups, plus scaling", () => {
    assert.deepStrictEqual(Object.keys(Settings.defaults).sort(), [
      "admission",
      "background",
      "execution",
      "networking",
      "peering",
      "persistence",
      "posting",
      "process",
      "queueing",
      "scaling",
      "scanning",
      "watching",
    ]);
  });
});

describe("overrides", () => {
  it("merge field by field, keeping the other fields of the group and the other groups", () => {
    const settings = made({ peering: { name: "mine" }, networking: { errorBackoffs: [5] } });
    assert.deepStrictEqual(settings.peering, { ...Settings.defaults.peering, name: "mine" });
    assert.deepStrictEqual(settings.networking, { ...Settings.defaults.networking, errorBackoffs: [5] });
    assert.deepStrictEqual(settings.watching, Settings.defaults.watching);
  });

  it("merge over a given base tree instead of the defaults", () => {
    const base = made({ peering: { name: "first", priority: 10 } });
    const settings = Settings.make({ peering: { priority: 20 } }, base);
    assert.deepStrictEqual(
      Result.map(settings, (s) => s.peering.name),
      Result.succeed("first"),
    );
    assert.deepStrictEqual(
      Result.map(settings, (s) => s.peering.priority),
      Result.succeed(20),
    );
  });

  it("ignore fields set to undefined", () => {
    assert.deepStrictEqual(made({ peering: { name: undefined }, watching: undefined }), Settings.defaults);
  });

  it("replace null-able values with null and back", () => {
    assert.strictEqual(made({ networking: { requestTimeout: null } }).networking.requestTimeout, null);
    assert.strictEqual(made({ watching: { serverTimeout: 30 } }).watching.serverTimeout, 30);
  });

  it("accept a webhook server object as is", () => {
    const server = { url: "https://example" };
    assert.strictEqual(made({ admission: { server } }).admission.server, server);
  });

  it("accept a custom progress storage as is", () => {
    const storage = { ...Settings.defaults.persistence.progressStorage };
    assert.strictEqual(
      made({ persistence: { progressStorage: storage } }).persistence.progressStorage,
      storage,
    );
  });

  it("cannot change the shared defaults in place", () => {
    assert.isTrue(Object.isFrozen(Settings.defaults.peering));
    assert.isTrue(Object.isFrozen(Settings.defaults.networking.errorBackoffs));
    assert.throws(() => {
      (Settings.defaults.peering as { name: string }).name = "changed";
    }, TypeError);
  });

  it("do not mutate the defaults", () => {
    const before = JSON.stringify(Settings.defaults);
    made({ peering: { name: "x" }, queueing: { errorDelays: [9] } });
    assert.strictEqual(JSON.stringify(Settings.defaults), before);
  });

  it("property: every field not overridden keeps its default", () => {
    const fields = fc.record(
      {
        idleTimeout: fc.double({ min: 0, max: 1e6, noNaN: true }),
        exitTimeout: fc.double({ min: 0, max: 1e6, noNaN: true }),
        workerLimit: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
        cycleLimit: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
        errorDelays: fc.array(fc.double({ min: 0, max: 1e6, noNaN: true })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fields, (queueing) => {
        const settings = made({ queueing });
        assert.deepStrictEqual(settings.queueing, { ...Settings.defaults.queueing, ...queueing });
        assert.deepStrictEqual(settings.peering, Settings.defaults.peering);
      }),
    );
  });
});

describe("mutableCopy (settings modified by startup handlers)", () => {
  it("is equal to the original, shares no group or list, and validates back after changes", () => {
    const copy = Settings.mutableCopy(Settings.defaults);
    assert.deepStrictEqual(copy, Settings.defaults);
    assert.notStrictEqual(copy.peering, Settings.defaults.peering);
    assert.notStrictEqual(copy.networking.errorBackoffs, Settings.defaults.networking.errorBackoffs);
    assert.strictEqual(copy.persistence.progressStorage, Settings.defaults.persistence.progressStorage);
    copy.posting.level = "Warn";
    copy.peering.priority = 100;
    const validated = made(copy);
    assert.strictEqual(validated.posting.level, "Warn");
    assert.strictEqual(validated.peering.priority, 100);
    assert.strictEqual(Settings.defaults.posting.level, "Info");
  });

  it("a bad change is rejected when validated back", () => {
    const copy = Settings.mutableCopy(Settings.defaults);
    copy.execution.maxWorkers = 0;
    assert.strictEqual(rejected(copy).issues[0]?.path, "execution.maxWorkers");
  });
});

describe("validation names the field's full path and the problem", () => {
  it.each([
    [
      { networking: { errorBackoffs: [1, 2, -3] } },
      "networking.errorBackoffs[2]: expected a non-negative number",
    ],
    [
      { networking: { errorBackoffs: "1,2" } },
      "networking.errorBackoffs: expected a list of non-negative numbers",
    ],
    [
      { networking: { rateLimit: { qps: 0, burst: 5 } } },
      "networking.rateLimit.qps: expected a positive number",
    ],
    [
      { networking: { rateLimit: { qps: 5, burst: 0.5 } } },
      "networking.rateLimit.burst: expected an integer of at least 1",
    ],
    [
      { networking: { requestTimeout: -1 } },
      "networking.requestTimeout: expected a non-negative number or null",
    ],
    [{ watching: { serverTimeout: "10" } }, "watching.serverTimeout: expected a non-negative number or null"],
    [
      { watching: { reconnectBackoff: Number.NaN } },
      "watching.reconnectBackoff: expected a non-negative number",
    ],
    [{ watching: { inactivityTimeout: 0 } }, "watching.inactivityTimeout: expected a positive number"],
    [{ queueing: { workerLimit: 0 } }, "queueing.workerLimit: expected a positive integer or null"],
    [{ queueing: { workerLimit: 1.5 } }, "queueing.workerLimit: expected a positive integer or null"],
    [{ queueing: { cycleLimit: 0 } }, "queueing.cycleLimit: expected a positive integer or null"],
    [{ execution: { maxWorkers: 0 } }, "execution.maxWorkers: expected a positive integer or null"],
    [{ peering: { priority: 1.5 } }, "peering.priority: expected an integer"],
    [{ peering: { name: "" } }, "peering.name: expected a non-empty string"],
    [{ peering: { standalone: "yes" } }, "peering.standalone: expected a boolean"],
    [{ posting: { level: "INFO" } }, 'posting.level: expected one of "All", "Trace", "Debug", "Info"'],
    [{ admission: { server: 5 } }, "admission.server: expected a webhook server or tunnel object or null"],
    [{ persistence: { finalizer: 5 } }, "persistence.finalizer: expected a non-empty string"],
    [
      { background: { instantExitZeroTimeCycles: -1 } },
      "background.instantExitZeroTimeCycles: expected a non-negative integer or null",
    ],
    [
      { process: { ultimateExitingTimeout: Number.POSITIVE_INFINITY } },
      "process.ultimateExitingTimeout: expected a non-negative number or null",
    ],
    [{ watching: 5 }, "watching: expected an object of watching settings"],
    [
      { persistence: { diffbaseStorage: {} } },
      "persistence.diffbaseStorage: expected a diff-base storage (with build, fetch, store)",
    ],
    [
      { persistence: { progressStorage: { fetch: () => undefined } } },
      "persistence.progressStorage: expected a progress storage (with fetch, store, purge, touch, clear, flush)",
    ],
    [5, "settings: expected an object of settings"],
  ])("%j ⇒ %s", (overrides, message) => {
    const error = rejected(overrides);
    assert.strictEqual(error._tag, "SettingsError");
    assert.strictEqual(error.reason, "InvalidValue");
    assert.include(error.message, message);
  });

  it.each([
    [{ networking: { errorBackof: [1] } }, "networking.errorBackof"],
    [{ logging: { level: "Debug" } }, "logging"],
  ])("an unknown setting %j is named: %s", (overrides, path) => {
    const error = rejected(overrides);
    assert.strictEqual(error.reason, "UnknownSetting");
    assert.deepStrictEqual(error.issues, [{ path, reason: "UnknownSetting", problem: "unknown setting" }]);
  });

  it("reports every problem once, in one error", () => {
    const error = rejected({
      watching: { reconnectBackoff: Number.NaN, serverTimeout: -1 },
      peering: { name: "" },
    });
    assert.deepStrictEqual(error.issues.map((issue) => issue.path).sort(), [
      "peering.name",
      "watching.reconnectBackoff",
      "watching.serverTimeout",
    ]);
  });
});

describe("Kopf's deprecated and alias spellings", () => {
  it("`batching` is an alias of `queueing`, with a warning", () => {
    const result = Settings.makeWithWarnings({
      batching: { idleTimeout: 1, exitTimeout: 3 },
      queueing: { exitTimeout: 4 },
    });
    assert(Result.isSuccess(result));
    assert.strictEqual(result.success.settings.queueing.idleTimeout, 1);
    assert.strictEqual(result.success.settings.queueing.exitTimeout, 4);
    assert.deepStrictEqual(
      result.success.warnings.map((warning) => warning.path),
      ["batching"],
    );
    assert.include(result.success.warnings[0]?.message, "Batching settings are now queueing settings.");
  });

  it("`queueing.batchWindow` is accepted and kept, with a warning", () => {
    const result = Settings.makeWithWarnings({ queueing: { batchWindow: 123 } });
    assert(Result.isSuccess(result));
    assert.strictEqual(result.success.settings.queueing.batchWindow, 123);
    assert.include(result.success.warnings[0]?.message, "Time-based event batching was removed.");
  });

  it("no warnings without deprecated settings", () => {
    const result = Settings.makeWithWarnings({ queueing: { idleTimeout: 9 } });
    assert.deepStrictEqual(
      Result.map(result, (m) => m.warnings),
      Result.succeed([]),
    );
  });

  it("a non-object `batching` is rejected", () => {
    assert.strictEqual(rejected({ batching: 1 }).issues[0]?.path, "batching");
  });

  it.each([
    [{ namespaced: true }, false],
    [{ namespaced: false }, true],
    [{ namespaced: false, clusterwide: true }, true],
    [{ clusterwide: true }, true],
  ])("peering %j ⇒ clusterwide %s", (peering, clusterwide) => {
    assert.strictEqual(made({ peering }).peering.clusterwide, clusterwide);
  });

  it("contradicting `namespaced` and `clusterwide` are rejected", () => {
    const error = rejected({ peering: { namespaced: true, clusterwide: true } });
    assert.strictEqual(error.reason, "ConflictingValues");
    assert.strictEqual(error.issues[0]?.path, "peering.namespaced");
  });

  it("a single number of error backoffs is a one-element list", () => {
    assert.deepStrictEqual(made({ networking: { errorBackoffs: 7 } }).networking.errorBackoffs, [7]);
  });
});

describe("OperatorSettings reference and layer", () => {
  it.effect("defaults to Kopf's defaults", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* OperatorSettings, Settings.defaults);
    }),
  );

  it.effect("the layer provides the overridden settings", () =>
    Effect.gen(function* () {
      const settings = yield* OperatorSettings;
      assert.strictEqual(settings.peering.name, "mine");
      assert.strictEqual(settings.peering.priority, 0);
    }).pipe(Effect.provide(Settings.layer({ peering: { name: "mine" } }))),
  );

  it.effect("the layer fails with the SettingsError", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.asVoid(
          Effect.gen(function* () {
            return yield* OperatorSettings;
          }),
        ).pipe(Effect.provide(Settings.layer({ queueing: { idleTimeout: -1 } }))),
      );
      assert.strictEqual(error.message, "queueing.idleTimeout: expected a non-negative number");
    }),
  );

  it.effect("makeEffect logs deprecation warnings", () =>
    Effect.gen(function* () {
      const logged: Array<string> = [];
      const capture = Logger.make<unknown, void>(({ logLevel, message }) => {
        logged.push(`${logLevel}: ${Array.isArray(message) ? message.join(" ") : String(message)}`);
      });
      const settings = yield* Settings.makeEffect({ batching: { workerLimit: 3 } }).pipe(
        Effect.provide(Logger.layer([capture])),
      );
      assert.strictEqual(settings.queueing.workerLimit, 3);
      assert.strictEqual(logged.length, 1);
      assert.match(logged[0] ?? "", /^Warn: batching: Batching settings are now queueing settings/);
    }),
  );
});

describe("scaling", () => {
  it("defaults to one replica, with client-go's lease timings", () => {
    assert.deepStrictEqual(Settings.defaults.scaling, {
      mode: "single",
      leaseName: "kopf",
      leaseNamespace: null,
      leaseDuration: 15,
      renewDeadline: 10,
      retryPeriod: 2,
      watch: "auto",
    });
  });

  it("takes the run options' modes, lease names and shard watch", () => {
    const made = Settings.make(
      RunOptions.forRun({ sharding: true, leaseName: "ring", leaseNamespace: "ops", shardWatch: "all" }),
    );
    assert.isTrue(Result.isSuccess(made));
    if (Result.isSuccess(made)) {
      assert.deepStrictEqual(
        {
          mode: made.success.scaling.mode,
          name: made.success.scaling.leaseName,
          ns: made.success.scaling.leaseNamespace,
          watch: made.success.scaling.watch,
        },
        { mode: "sharding", name: "ring", ns: "ops", watch: "all" },
      );
    }
  });

  it.each([
    [{ mode: "cluster" }, 'scaling.mode: expected one of "single", "leader-election", "sharding"'],
    [{ leaseDuration: 1.5 }, "scaling.leaseDuration: expected a whole number of seconds of at least 1"],
    [{ leaseName: "" }, "scaling.leaseName: expected a non-empty string"],
    [{ watch: "mine" }, 'scaling.watch: expected one of "auto", "own-shards", "all"'],
  ])("rejects %j", (scaling, message) => {
    const made = Settings.make({ scaling } as Settings.Overrides);
    assert.isTrue(Result.isFailure(made));
    if (Result.isFailure(made)) assert.include(made.failure.message, message);
  });
});
