// Covers the control surface's routing with recorded operations: which endpoint calls what,
// rule bodies passed through (and rejected with 400), pause and restart deferred until the
// response is sent, 404 for unknown endpoints and 405 with Allow for wrong methods.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import type { ApiRequest } from "../../src/api/Emulator.ts";
import * as ControlApi from "../../src/control/ControlApi.ts";
import { FaultRuleError } from "../../src/control/FaultInjector.ts";

const recorder = () => {
  const calls: Array<string> = [];
  const record = (name: string) => Effect.sync(() => void calls.push(name));
  const ops: ControlApi.ControlOperations = {
    injectFailure: (rule) =>
      rule.status === 200
        ? Effect.fail(new FaultRuleError({ reason: "InvalidRule", message: "status must be 400..599" }))
        : record(`injectFailure ${JSON.stringify(rule)}`),
    addLatency: (rule) => record(`addLatency ${JSON.stringify(rule)}`),
    clearFaults: record("clearFaults"),
    pendingFaults: Effect.succeed({ failures: [], latencies: [] }),
    dropWatches: record("dropWatches"),
    compactHistory: record("compactHistory"),
    pause: record("pause"),
    resume: record("resume"),
    restart: record("restart"),
  };
  return { calls, ops };
};

const request = (method: string, path: string, body?: unknown): ApiRequest => ({
  method,
  path,
  query: new URLSearchParams(),
  headers: {},
  body: body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body)),
  user: { username: "u", groups: [] },
});

const bodyOf = (result: ControlApi.ControlResult) =>
  result.response._tag === "Complete"
    ? JSON.parse(new TextDecoder().decode(result.response.body))
    : undefined;

describe("ControlApi.route", () => {
  it.each([
    ["/.emulator", true],
    ["/.emulator/faults", true],
    ["/.emulatorx", false],
    ["/api/v1/namespaces", false],
  ])("isControlPath(%s) = %s", (path, expected) => {
    assert.strictEqual(ControlApi.isControlPath(path), expected);
  });

  it.effect.each([
    ["POST", "/.emulator/failures", { status: 503, times: 2 }, 'injectFailure {"status":503,"times":2}'],
    ["POST", "/.emulator/latency", { delayMillis: 5 }, 'addLatency {"delayMillis":5}'],
    ["DELETE", "/.emulator/faults", undefined, "clearFaults"],
    ["POST", "/.emulator/watches/drop", undefined, "dropWatches"],
    ["POST", "/.emulator/history/compact", undefined, "compactHistory"],
  ] as const)("%s %s calls the operation", ([method, path, body, call]) =>
    Effect.gen(function* () {
      const { calls, ops } = recorder();
      const result = yield* ControlApi.route(request(method, path, body), ops);
      assert.strictEqual(result.response.status, 200);
      assert.strictEqual(bodyOf(result).status, "Success");
      assert.deepStrictEqual(calls, [call]);
      assert.isUndefined(result.after);
    }),
  );

  it.live("defers pause and restart until the response is sent", () =>
    Effect.gen(function* () {
      const { calls, ops } = recorder();
      const restart = yield* ControlApi.route(request("POST", "/.emulator/restart"), ops);
      assert.deepStrictEqual(calls, []);
      yield* restart.after ?? Effect.void;
      assert.deepStrictEqual(calls, ["restart"]);
      const pause = yield* ControlApi.route(request("POST", "/.emulator/pause", { seconds: 0.01 }), ops);
      assert.deepStrictEqual(calls, ["restart"]);
      yield* pause.after ?? Effect.void;
      assert.deepStrictEqual(calls, ["restart", "pause", "resume"]);
    }),
  );

  it.effect.each([
    ["POST", "/.emulator/failures", { status: 200 }, 400, "invalid rule: status must be 400..599"],
    ["POST", "/.emulator/pause", {}, 400, 'pause needs {"seconds": N}'],
    ["POST", "/.emulator/pause", { seconds: -1 }, 400, 'pause needs {"seconds": N}'],
    ["GET", "/.emulator/nothing", undefined, 404, "no emulator control endpoint at /.emulator/nothing"],
    [
      "GET",
      "/.emulator/failures",
      undefined,
      405,
      "GET is not supported on /.emulator/failures (allowed: POST)",
    ],
  ] as const)("%s %s %j → %d", ([method, path, body, status, message]) =>
    Effect.gen(function* () {
      const { calls, ops } = recorder();
      const result = yield* ControlApi.route(request(method, path, body), ops);
      assert.strictEqual(result.response.status, status);
      assert.include(bodyOf(result).message, message);
      assert.deepStrictEqual(calls, []);
    }),
  );

  it.effect("lists the armed rules", () =>
    Effect.gen(function* () {
      const { ops } = recorder();
      const result = yield* ControlApi.route(request("GET", "/.emulator/faults"), ops);
      assert.deepStrictEqual(bodyOf(result), { failures: [], latencies: [] });
    }),
  );
});
