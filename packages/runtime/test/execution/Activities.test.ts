// Covers operator activities (docs/behaviour/operator.md#tasks-start-up-and-shutdown, docs/behaviour/operator.md#liveness-endpoint, docs/behaviour/operator.md#logins): all handlers at once, retried in
// virtual time until all are done, a final failure as ActivityError, the activity context
// (memo shared, settings, activity, retry…), login results validated into credentials, and
// probe results by handler id. Startup handlers change the settings, validated after them;
// probes run once per probing and fail at once. Startup handlers change the settings, which are validated after
// them; probes run once per probing, failing at once.
import { assert, describe, expect, it } from "@effect/vitest";
import { CredentialsVault } from "@kopf/client";
import { PermanentError, Registry, TemporaryError } from "@kopf/registry";
import { type OperatorSettings, Settings } from "@kopf/settings";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as Option from "effect/Option";
import * as References from "effect/References";
import * as Result from "effect/Result";
import { TestClock } from "effect/testing";
import * as Activities from "../../src/execution/Activities.ts";
import * as F from "./fixtures.ts";

const errorOf = <E>(exit: Exit.Exit<unknown, E>): E => {
  assert.isTrue(Exit.isFailure(exit));
  const found = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined;
  assert.strictEqual(found?._tag, "Some");
  return (found as { value: E }).value;
};

describe("run", () => {
  it.effect("gives handlers the activity context and the shared memo", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      const seen: Array<Record<string, unknown>> = [];
      registry.on.startup({ id: "s1", param: "p" }, (ctx) => {
        seen.push({ ...ctx });
        ctx.memo.counter = 1;
      });
      registry.on.startup({ id: "s2" }, (ctx) => void seen.push({ ...ctx }));
      const memo = {};
      const settings = Settings.mutableCopy(Settings.defaults);
      const rec = F.recorder();
      yield* Activities.run(registry, "startup", { memo, settings, logger: rec.logger, indices: { idx: 1 } });
      expect(Object.keys(seen[0]!).sort()).toEqual(
        ["activity", "idx", "logger", "memo", "param", "retry", "runtime", "settings", "started"].sort(),
      );
      expect(seen[0]).toMatchObject({ activity: "startup", param: "p", retry: 0, settings });
      expect(seen[1]?.memo).toBe(memo);
      expect(memo).toEqual({ counter: 1 });
      expect(rec.messages()).toEqual(["Activity 's1' succeeded.", "Activity 's2' succeeded."]);
    }),
  );

  it.effect("retries until all handlers are done, sleeping on the clock", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      const attempts: Array<string> = [];
      registry.on.startup({ id: "flaky" }, ({ retry }) => {
        attempts.push(`flaky#${retry}`);
        if (retry < 2) throw new TemporaryError("not ready", { delay: 10 });
      });
      registry.on.startup({ id: "steady" }, () => void attempts.push("steady"));
      const fiber = yield* Effect.forkChild(
        Activities.run(registry, "startup", { logger: F.recorder().logger }),
      );
      yield* TestClock.adjust("9 seconds");
      expect(attempts).toEqual(["flaky#0", "steady"]);
      yield* TestClock.adjust("1 second");
      expect(attempts).toEqual(["flaky#0", "steady", "flaky#1"]);
      yield* TestClock.adjust("10 seconds");
      yield* Fiber.join(fiber);
      expect(attempts).toEqual(["flaky#0", "steady", "flaky#1", "flaky#2"]);
    }),
  );

  it.effect("fails with ActivityError when a handler fails for good", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.startup({ id: "bad" }, () => {
        throw new PermanentError("no database");
      });
      registry.on.startup({ id: "good" }, () => "ok");
      const error = errorOf(
        yield* Effect.exit(Activities.run(registry, "startup", { logger: F.recorder().logger })),
      );
      expect(error).toBeInstanceOf(Activities.ActivityError);
      const activityError = error as Activities.ActivityError;
      expect([activityError.reason, activityError.activity, activityError.message]).toEqual([
        "HandlersFailed",
        "startup",
        "One or more handlers failed.",
      ]);
      expect(Object.keys(activityError.errors)).toEqual(["bad"]);
    }),
  );

  it.effect("uses the settings' backoff and the handler's retries limit", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      let calls = 0;
      registry.on.cleanup({ id: "c", retries: 3 }, () => {
        calls++;
        throw new Error("always");
      });
      const settings = {
        ...Settings.defaults,
        execution: { ...Settings.defaults.execution, defaultBackoff: 1 },
      };
      const fiber = yield* Effect.forkChild(
        Effect.exit(Activities.run(registry, "cleanup", { settings, logger: F.recorder().logger })),
      );
      yield* TestClock.adjust("2 seconds");
      const exit = yield* Fiber.join(fiber);
      expect(calls).toBe(3);
      expect(errorOf(exit)).toBeInstanceOf(Activities.ActivityError);
    }),
  );

  it.effect("without handlers completes at once with nothing", () =>
    Effect.gen(function* () {
      const results = yield* Activities.run(Registry.make(), "cleanup", { logger: F.recorder().logger });
      expect(results.size).toBe(0);
    }),
  );

  it.effect("logs through Effect when no logger is given", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.startup({ id: "s" }, ({ logger }) => logger.info("hello"));
      const logged: Array<readonly [string, unknown, unknown]> = [];
      const capture = Logger.make((options) => {
        const annotations = options.fiber.getRef(References.CurrentLogAnnotations);
        logged.push([options.logLevel, options.message, annotations.logger]);
      });
      yield* Activities.run(registry, "startup").pipe(Effect.provide(Logger.layer([capture])));
      expect(logged).toContainEqual(["Info", ["hello"], "kopf.activities.startup"]);
      expect(logged).toContainEqual(["Info", ["Activity 's' succeeded."], "kopf.activities.startup"]);
    }),
  );
});

describe("run: startup settings", () => {
  it.effect("startup handlers change the given tree, which holds the validated settings after", () =>
    Effect.gen(function* () {
      const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
      registry.on.startup({ id: "configure" }, ({ settings }) => {
        settings.posting.level = "Warn";
        settings.admission.managed = "auto.kopf.dev";
        settings.queueing = { ...settings.queueing, errorDelays: [1, 2] };
      });
      const settings = Settings.mutableCopy(Settings.defaults);
      const edited = settings.posting;
      yield* Activities.run(registry, "startup", { settings, logger: F.recorder().logger });
      expect(settings).toEqual({
        ...Settings.defaults,
        posting: { ...Settings.defaults.posting, level: "Warn" },
        admission: { ...Settings.defaults.admission, managed: "auto.kopf.dev" },
        queueing: { ...Settings.defaults.queueing, errorDelays: [1, 2] },
      });
      expect(settings.posting).not.toBe(edited); // the validated group replaced the edited one
    }),
  );

  const changes: ReadonlyArray<readonly [string, (settings: Settings.MutableSettings) => void, string]> = [
    [
      "an invalid value",
      (s) => {
        s.queueing.workerLimit = 0;
      },
      "queueing.workerLimit",
    ],
    [
      "an unknown field",
      (s) => {
        (s.posting as Record<string, unknown>).levle = "Warn";
      },
      "posting.levle",
    ],
    [
      "a group replaced by a non-object",
      (s) => {
        (s as Record<string, unknown>).peering = "none";
      },
      "peering",
    ],
  ];

  it.effect.each(changes)("fails with InvalidSettings when startup handlers leave %s", ([, change, path]) =>
    Effect.gen(function* () {
      const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
      registry.on.startup({ id: "configure" }, ({ settings }) => change(settings));
      const settings = Settings.mutableCopy(Settings.defaults);
      const error = errorOf(
        yield* Effect.exit(Activities.run(registry, "startup", { settings, logger: F.recorder().logger })),
      );
      expect(error).toBeInstanceOf(Activities.ActivityError);
      const activityError = error as Activities.ActivityError;
      expect([activityError.reason, activityError.activity]).toEqual(["InvalidSettings", "startup"]);
      expect(activityError.message).toContain("The settings changed by the startup handlers are invalid");
      expect(activityError.message).toContain(path);
    }),
  );

  it.effect("fields set to undefined keep their former values", () =>
    Effect.gen(function* () {
      const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
      registry.on.startup({ id: "unset" }, ({ settings }) => {
        (settings.peering as Record<string, unknown>).name = undefined;
      });
      const settings = Settings.mutableCopy(Result.getOrThrow(Settings.make({ peering: { name: "mine" } })));
      yield* Activities.run(registry, "startup", { settings, logger: F.recorder().logger });
      expect(settings.peering.name).toBe("mine");
    }),
  );

  it.effect("frozen settings are not changed: startup handlers get a mutable copy", () =>
    Effect.gen(function* () {
      const registry = Registry.make<OperatorSettings, Settings.MutableSettings>();
      const seen: Array<Settings.MutableSettings> = [];
      registry.on.startup({ id: "configure", errors: "permanent" }, ({ settings }) => {
        settings.posting.level = "Warn";
        seen.push(settings);
      });
      yield* Activities.run(registry, "startup", {
        settings: Settings.defaults,
        logger: F.recorder().logger,
      });
      expect(seen[0]?.posting.level).toBe("Warn");
      expect(Settings.defaults.posting.level).toBe("Info");
    }),
  );

  it.effect("other activities get the settings as they are", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      let seen: unknown;
      registry.on.cleanup({ id: "c" }, ({ settings }) => {
        seen = settings;
      });
      yield* Activities.run(registry, "cleanup", {
        settings: Settings.defaults,
        logger: F.recorder().logger,
      });
      expect(seen).toBe(Settings.defaults);
    }),
  );
});

describe("authenticate", () => {
  it.effect("turns connection info into credentials by handler id", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.login({ id: "login_fn" }, () => ({ server: "https://k8s:6443", token: "t", priority: 10 }));
      registry.on.login({ id: "nothing" }, () => null);
      const credentials = yield* Activities.authenticate(registry, { logger: F.recorder().logger });
      expect(credentials).toEqual({
        login_fn: { server: "https://k8s:6443", token: "t", priority: 10, trustEnv: false },
      });
    }),
  );

  it.effect.each([
    ["a string", (): unknown => "token", "InvalidConfiguration"],
    ["an object without a server", (): unknown => ({ token: "t" }), "InvalidConfiguration"],
    [
      "conflicting fields",
      (): unknown => ({ server: "https://k", caPath: "/a", caData: "b" }),
      "InvalidConfiguration",
    ],
  ] as const)("rejects %s", ([_name, fn, reason]) =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.login({ id: "login_fn" }, fn);
      const error = errorOf(
        yield* Effect.exit(Activities.authenticate(registry, { logger: F.recorder().logger })),
      );
      expect(error).toMatchObject({ _tag: "LoginError", reason });
    }),
  );
});

describe("login", () => {
  it.effect("gives no credentials when the handlers return nothing (the vault reports it)", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.login({ id: "login_fn" }, () => null);
      expect(yield* Activities.login(registry, { logger: F.recorder().logger })).toEqual({});
    }),
  );

  it.effect("reports failed login handlers as a LoginError for the vault", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.login({ id: "login_fn" }, () => {
        throw new PermanentError("no token");
      });
      const error = errorOf(yield* Effect.exit(Activities.login(registry, { logger: F.recorder().logger })));
      expect(error).toMatchObject({
        _tag: "LoginError",
        reason: "PluginFailed",
        message: "Login handlers have failed: login_fn.",
      });
    }),
  );

  it.effect("feeds a credentials vault", () => {
    const registry = Registry.make();
    registry.on.login({ id: "login_fn" }, () => ({ server: "https://k8s:6443", token: "t" }));
    return Effect.gen(function* () {
      const vault = yield* CredentialsVault;
      const item = yield* vault.select;
      expect(item.info.token).toBe("t");
    }).pipe(
      Effect.provide(
        Layer.fresh(
          CredentialsVault.layer({ login: Activities.login(registry, { logger: F.recorder().logger }) }),
        ),
      ),
    );
  });
});

describe("probe", () => {
  it.effect("reports the probes' results by id", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.probe({ id: "count" }, () => 42);
      registry.on.probe({ id: "status" }, async () => ({ ok: true }));
      expect(yield* Activities.probe(registry, { logger: F.recorder().logger })).toEqual({
        count: 42,
        status: { ok: true },
      });
      expect(yield* Activities.probe(Registry.make(), { logger: F.recorder().logger })).toEqual({});
    }),
  );

  it.live.each([
    ["an arbitrary error", () => new Error("database down"), "failed with an exception and will stop now"],
    ["a temporary error", () => new TemporaryError("database down", { delay: 1 }), "failed temporarily"],
    ["a permanent error", () => new PermanentError("database down"), "failed permanently"],
  ] as const)("fails at once, without retrying, on %s", ([, makeError, logged]) =>
    Effect.gen(function* () {
      const registry = Registry.make();
      let calls = 0;
      registry.on.probe({ id: "db" }, () => {
        calls++;
        throw makeError();
      });
      registry.on.probe({ id: "fine" }, () => "ok");
      const rec = F.recorder();
      const exit = yield* Effect.exit(Activities.probe(registry, { logger: rec.logger })).pipe(
        Effect.timeoutOption("2 seconds"),
      );
      assert.isTrue(Option.isSome(exit), "the probing waits for a retry");
      const error = errorOf(Option.getOrThrow(exit)) as Activities.ActivityError;
      expect([error._tag, error.reason, error.activity, Object.keys(error.errors)]).toEqual([
        "ActivityError",
        "HandlersFailed",
        "probe",
        ["db"],
      ]);
      expect(calls).toBe(1);
      expect(rec.messages().some((m) => m.includes(logged) && m.includes("database down"))).toBe(true);
      expect(rec.messages().some((m) => m.includes("try again"))).toBe(false);
    }),
  );

  it.effect("a probe whose errors are ignored reports nothing", () =>
    Effect.gen(function* () {
      const registry = Registry.make();
      registry.on.probe({ id: "quiet", errors: "ignored" }, () => {
        throw new Error("ignored");
      });
      expect(yield* Activities.probe(registry, { logger: F.recorder().logger })).toEqual({});
    }),
  );
});
