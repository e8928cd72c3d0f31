// Covers the credentials vault (docs/behaviour/operator.md#the-credentials-vault): priority first, random among equals; invalidation
// on 401 with a retry on the next item; "not ready" blocking while re-authenticating (one login
// for many waiters); the last-3 rejection rule; expiration on Clock; running out of credentials.
import { assert, describe, it } from "@effect/vitest";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as Ref from "effect/Ref";
import { TestClock } from "effect/testing";
import fc from "fast-check";
import type * as ConnectionInfo from "../src/ConnectionInfo.ts";
import { KubeApiError } from "../src/KubeApiError.ts";
import { LoginError } from "../src/LoginError.ts";
import {
  type Credentials,
  CredentialsVault,
  MAX_CREDENTIAL_ATTEMPTS,
  type VaultOptions,
} from "../src/Vault.ts";

const info = (token: string, priority = 0, expiration?: number): ConnectionInfo.ConnectionInfo => ({
  server: "https://127.0.0.1:6443",
  token,
  priority,
  trustEnv: false,
  ...(expiration === undefined ? {} : { expiration }),
});

const withVault = <A, E>(
  options: VaultOptions,
  body: (vault: CredentialsVault["Service"]) => Effect.Effect<A, E>,
) =>
  Effect.gen(function* () {
    const vault = yield* CredentialsVault;
    return yield* body(vault);
  }).pipe(Effect.provide(Layer.fresh(CredentialsVault.layer(options))));

/** A login that hands out the given credential sets one after another, counting its runs. */
const scriptedLogin = (runs: Ref.Ref<number>, sets: ReadonlyArray<Credentials>) =>
  Ref.getAndUpdate(runs, (n) => n + 1).pipe(Effect.map((n) => sets[Math.min(n, sets.length - 1)] ?? {}));

const unauthorized = KubeApiError.fromResponse({
  status: 401,
  headers: {},
  body: '{"kind":"Status","code":401}',
})!;

describe("selection", () => {
  it.effect("takes the highest priority", () =>
    withVault({ initial: { low: info("a", 1), high: info("b", 20), mid: info("c", 10) } }, (vault) =>
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) assert.strictEqual((yield* vault.select).key, "high");
      }),
    ),
  );

  it.effect("chooses at random among equal priorities", () =>
    withVault({ initial: { a: info("a", 5), b: info("b", 5), c: info("c", 1) } }, (vault) =>
      Effect.gen(function* () {
        const seen = new Set<string>();
        for (let i = 0; i < 200; i++) seen.add((yield* vault.select).key);
        assert.deepStrictEqual([...seen].sort(), ["a", "b"]);
      }),
    ),
  );

  it.effect("always hands out an item of the highest priority present (property)", () =>
    Effect.gen(function* () {
      const samples = fc.sample(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 6 }),
        50,
      );
      for (const priorities of samples) {
        const initial = Object.fromEntries(priorities.map((p, i) => [`k${i}`, info(`t${i}`, p)]));
        const top = Math.max(...priorities);
        yield* withVault({ initial }, (vault) =>
          Effect.gen(function* () {
            for (let i = 0; i < 5; i++) assert.strictEqual((yield* vault.select).info.priority, top);
          }),
        );
      }
    }),
  );

  it.effect("an empty vault without a login fails with OutOfCredentials", () =>
    withVault({}, (vault) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(vault.select);
        assert.instanceOf(error, LoginError);
        assert.strictEqual(error.reason, "OutOfCredentials");
        assert.match(error.message, /^Ran out of valid credentials/);
      }),
    ),
  );
});

describe("invalidation and re-authentication", () => {
  it.effect("invalidating one of several items does not re-authenticate", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      yield* withVault(
        { initial: { a: info("a", 5), b: info("b", 5) }, login: scriptedLogin(runs, [{}]) },
        (vault) =>
          Effect.gen(function* () {
            const first = yield* vault.select;
            yield* vault.invalidate(first);
            for (let i = 0; i < 20; i++) assert.notStrictEqual((yield* vault.select).key, first.key);
          }),
      );
      assert.strictEqual(yield* Ref.get(runs), 0);
    }),
  );

  it.effect("invalidating the last item blocks until the login has repopulated the vault", () =>
    Effect.gen(function* () {
      const release = yield* Deferred.make<void>();
      const runs = yield* Ref.make(0);
      const login = Deferred.await(release).pipe(Effect.andThen(scriptedLogin(runs, [{ k: info("new") }])));
      yield* withVault({ initial: { k: info("old") }, login }, (vault) =>
        Effect.gen(function* () {
          const old = yield* vault.select;
          const invalidating = yield* Effect.forkChild(vault.invalidate(old));
          const waiters = yield* Effect.forkChild(Effect.all([vault.select, vault.select, vault.select]));
          yield* Effect.yieldNow;
          assert.isUndefined(invalidating.pollUnsafe());
          assert.isUndefined(waiters.pollUnsafe());
          yield* Deferred.succeed(release, undefined);
          yield* Fiber.join(invalidating);
          const selected = yield* Fiber.join(waiters);
          assert.deepStrictEqual(
            selected.map((item) => item.info.token),
            ["new", "new", "new"],
          );
        }),
      );
      assert.strictEqual(yield* Ref.get(runs), 1);
    }),
  );

  it.effect("an initially empty vault logs in before the first use", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      yield* withVault({ login: scriptedLogin(runs, [{ k: info("t") }]) }, (vault) =>
        Effect.map(vault.select, (item) => assert.strictEqual(item.info.token, "t")),
      );
      assert.strictEqual(yield* Ref.get(runs), 1);
    }),
  );

  it.effect(
    "the first login is the initial authentication, later ones re-authentication (Kopf's log lines)",
    () =>
      Effect.gen(function* () {
        const runs = yield* Ref.make(0);
        const logs: Array<string> = [];
        const logger = Logger.make(({ message }) => {
          logs.push((Array.isArray(message) ? message : [message]).join(" "));
        });
        yield* withVault({ login: scriptedLogin(runs, [{ k: info("t1") }, { k: info("t2") }]) }, (vault) =>
          Effect.gen(function* () {
            const first = yield* vault.select;
            yield* vault.invalidate(first);
            assert.strictEqual((yield* vault.select).info.token, "t2");
          }),
        ).pipe(Effect.provide(Logger.layer([logger])));
        assert.deepStrictEqual(logs, [
          "Initial authentication has been initiated.",
          "Initial authentication has finished.",
          "Re-authentication has been initiated.",
          "Re-authentication has finished.",
        ]);
      }),
  );

  it.effect("credentials equal to recently invalidated ones are refused", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      yield* withVault(
        { initial: { k: info("bad") }, login: scriptedLogin(runs, [{ k: info("bad") }]) },
        (vault) =>
          Effect.gen(function* () {
            const item = yield* vault.select;
            const error = yield* Effect.flip(vault.invalidate(item));
            assert.strictEqual(error.reason, "OutOfCredentials");
          }),
      );
      assert.strictEqual(yield* Ref.get(runs), 1);
    }),
  );

  it.effect("a rejected token refreshed with a new expiration is still refused", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      const login = Ref.updateAndGet(runs, (n) => n + 1).pipe(
        Effect.map((n) => ({ k: info("bad", 0, 60_000 * n) })),
      );
      yield* withVault({ login }, (vault) =>
        Effect.gen(function* () {
          const item = yield* vault.select;
          const error = yield* Effect.flip(vault.invalidate(item));
          assert.strictEqual(error.reason, "OutOfCredentials");
        }),
      );
      assert.strictEqual(yield* Ref.get(runs), 2);
    }),
  );

  it.effect("only the last 3 invalidated credentials per key are remembered", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      const sets = ["t2", "t3", "t4", "t1"].map((t) => ({ k: info(t) }));
      yield* withVault({ initial: { k: info("t1") }, login: scriptedLogin(runs, sets) }, (vault) =>
        Effect.gen(function* () {
          // t1, t2, t3 rejected in turn; t4 arrives; reject it too, then t1 (now 4 rejections ago) is accepted.
          for (const expected of ["t1", "t2", "t3", "t4"]) {
            const item = yield* vault.select;
            assert.strictEqual(item.info.token, expected);
            yield* vault.invalidate(item);
          }
          assert.strictEqual((yield* vault.select).info.token, "t1");
        }),
      );
    }),
  );

  it.effect("a failing login leaves the callers with OutOfCredentials and a later call logs in again", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      const login = Ref.getAndUpdate(runs, (n) => n + 1).pipe(
        Effect.flatMap((n) =>
          n === 0
            ? Effect.fail(new LoginError({ reason: "PluginFailed", message: "exec plugin exited with 1" }))
            : Effect.succeed({ k: info("ok") }),
        ),
      );
      yield* withVault({ login }, (vault) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(vault.select);
          assert.strictEqual(error.reason, "OutOfCredentials");
          assert.include(error.message, "The last login failed: exec plugin exited with 1");
          assert.strictEqual((error.cause as LoginError).reason, "PluginFailed");
          assert.strictEqual((yield* vault.select).info.token, "ok");
        }),
      );
      assert.strictEqual(yield* Ref.get(runs), 2);
    }),
  );
});

describe("expiration", () => {
  it.effect("expired items are dropped; when all are gone, re-authentication runs", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      yield* withVault(
        {
          initial: { a: info("soon", 10, 60_000), b: info("later", 0, 120_000) },
          login: scriptedLogin(runs, [{ a: info("fresh", 10, 600_000) }]),
        },
        (vault) =>
          Effect.gen(function* () {
            assert.strictEqual((yield* vault.select).info.token, "soon");
            yield* TestClock.adjust("60 seconds");
            assert.strictEqual((yield* vault.select).info.token, "later");
            assert.strictEqual(yield* Ref.get(runs), 0);
            yield* TestClock.adjust("60 seconds");
            assert.strictEqual((yield* vault.select).info.token, "fresh");
            assert.strictEqual(yield* Ref.get(runs), 1);
          }),
      );
    }),
  );

  it.effect("expired credentials are not remembered as invalid", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      const same = info("same", 0, 1_000);
      yield* withVault(
        { initial: { k: same }, login: scriptedLogin(runs, [{ k: info("same", 0, 5_000) }]) },
        (vault) =>
          Effect.gen(function* () {
            yield* TestClock.adjust("2 seconds");
            assert.strictEqual((yield* vault.select).info.expiration, 5_000);
          }),
      );
    }),
  );
});

describe("withCredentials", () => {
  it.effect("retries with the next credentials after a 401 and never reuses the rejected ones", () =>
    withVault({ initial: { a: info("a", 5), b: info("b", 1) } }, (vault) =>
      Effect.gen(function* () {
        const tried: Array<string> = [];
        const result = yield* vault.withCredentials((item) => {
          tried.push(item.info.token!);
          return item.info.token === "a" ? Effect.fail(unauthorized) : Effect.succeed("done");
        });
        assert.strictEqual(result, "done");
        assert.deepStrictEqual(tried, ["a", "b"]);
        assert.deepStrictEqual(
          (yield* vault.items).map((item) => item.key),
          ["b"],
        );
      }),
    ),
  );

  it.effect("passes other errors through without invalidating", () =>
    withVault({ initial: { a: info("a") } }, (vault) =>
      Effect.gen(function* () {
        const notFound = KubeApiError.fromResponse({ status: 404, headers: {}, body: "" })!;
        const exit = yield* Effect.exit(vault.withCredentials(() => Effect.fail(notFound)));
        assert.deepStrictEqual(exit, Exit.fail(notFound));
        assert.strictEqual((yield* vault.items).length, 1);
      }),
    ),
  );

  it.effect("gives up with the last 401 when a login keeps producing rejected credentials", () =>
    Effect.gen(function* () {
      const runs = yield* Ref.make(0);
      const login = Ref.updateAndGet(runs, (n) => n + 1).pipe(Effect.map((n) => ({ k: info(`fresh-${n}`) })));
      yield* withVault({ login }, (vault) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(vault.withCredentials(() => Effect.fail(unauthorized)));
          assert.strictEqual(error, unauthorized);
        }),
      );
      assert.strictEqual(yield* Ref.get(runs), MAX_CREDENTIAL_ATTEMPTS + 1);
    }),
  );

  it.effect("fails with OutOfCredentials when every credential is rejected", () =>
    withVault({ initial: { a: info("a"), b: info("b") } }, (vault) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(vault.withCredentials(() => Effect.fail(unauthorized)));
        assert.strictEqual(error._tag, "LoginError");
      }),
    ),
  );
});
