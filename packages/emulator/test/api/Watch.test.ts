/** Watch streams: initial state, resumption from a resourceVersion, 410 after compaction, selectors, bookmarks and timeouts on the TestClock. */
import type * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import { describe, expect, it } from "vitest";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { cm, request, run, runOnTestClock, send, watch } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";
const summary = (events: ReadonlyArray<any>) =>
  events.map((e) => [e.type, e.object.metadata?.name ?? e.object.message]);

describe("watch", () => {
  it("starts with the current state when resourceVersion is unset, then streams changes", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("a"));
        const kube = yield* KubeEmulator;
        const response = yield* kube.handle(request("GET", `${NS}?watch=true`));
        if (response._tag !== "Streaming") throw new Error("not streaming");
        const fiber = yield* Effect.forkChild(Stream.runCollect(Stream.take(response.body, 4)));
        yield* Effect.yieldNow;
        yield* send("POST", NS, cm("b"));
        yield* send(
          "PATCH",
          `${NS}/a`,
          { data: { x: "1" } },
          { "content-type": "application/merge-patch+json" },
        );
        yield* send("DELETE", `${NS}/b`);
        const chunks = yield* Fiber.join(fiber);
        return [...chunks].map((c) => JSON.parse(new TextDecoder().decode(c)));
      }),
    );
    expect(summary(r)).toEqual([
      ["ADDED", "a"],
      ["ADDED", "b"],
      ["MODIFIED", "a"],
      ["DELETED", "b"],
    ]);
    const deleted = r[3];
    expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(
      Number(r[1].object.metadata.resourceVersion),
    );
  });

  it("sends a write's object in its event line as the write's response does, byte for byte", async () => {
    const data = { text: "héllo ✓ 🚀", quote: '"\\', n: "1" };
    const [line, body] = await run(
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        const response = yield* kube.handle(request("GET", `${NS}?watch=true`));
        if (response._tag !== "Streaming") throw new Error("not streaming");
        const fiber = yield* Effect.forkChild(Stream.runCollect(Stream.take(response.body, 2)));
        yield* Effect.yieldNow;
        const created = yield* kube.handle(request("POST", NS, { ...cm("utf"), data }));
        const patched = yield* kube.handle(
          request(
            "PATCH",
            `${NS}/utf`,
            { data: { n: "2" } },
            { "content-type": "application/merge-patch+json" },
          ),
        );
        if (created._tag !== "Complete" || patched._tag !== "Complete") throw new Error("not complete");
        const chunks = [...(yield* Fiber.join(fiber))];
        return [chunks, [created.body, patched.body]] as const;
      }),
    );
    const text = (bytes: Uint8Array) => new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    expect(line.map(text)).toEqual([
      `{"type":"ADDED","object":${text(body[0] as Uint8Array)}}\n`,
      `{"type":"MODIFIED","object":${text(body[1] as Uint8Array)}}\n`,
    ]);
    expect(JSON.parse(text(line[1] as Uint8Array)).object.data).toEqual({ ...data, n: "2" });
  });

  it("resumes after a given resourceVersion from the history", async () => {
    const r = await run(
      Effect.gen(function* () {
        const a = yield* send("POST", NS, cm("a"));
        yield* send("POST", NS, cm("b"));
        yield* send("DELETE", `${NS}/a`);
        return yield* watch(`${NS}?watch=1&resourceVersion=${a.body.metadata.resourceVersion}`, 2);
      }),
    );
    expect(summary(r.events)).toEqual([
      ["ADDED", "b"],
      ["DELETED", "a"],
    ]);
  });

  it("answers an ERROR event with 410 Expired for a compacted resourceVersion", async () => {
    const r = await run(
      Effect.gen(function* () {
        const a = yield* send("POST", NS, cm("a"));
        yield* send("POST", NS, cm("b"));
        const kube = yield* KubeEmulator;
        yield* kube.compactHistory;
        return yield* watch(`${NS}?watch=1&resourceVersion=${a.body.metadata.resourceVersion}`, 1);
      }),
    );
    expect(r.status).toBe(200);
    expect(r.events).toHaveLength(1);
    expect(r.events[0].type).toBe("ERROR");
    expect(r.events[0].object).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Expired",
      code: 410,
    });
    expect(r.events[0].object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it("forgets old events beyond the history size", async () => {
    const r = await run(
      Effect.gen(function* () {
        const first = yield* send("POST", NS, cm("c0"));
        for (let i = 1; i < 12; i++) yield* send("POST", NS, cm(`c${i}`));
        return yield* watch(`${NS}?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`, 1);
      }),
      { historySize: 4, historyWindow: 0 },
    );
    expect(r.events[0].type).toBe("ERROR");
  });

  // As kube-apiserver's watch cache: beyond the newest `historySize` events, those younger than
  // the window stay (up to the cap), so a burst of writes does not expire a watch's version.
  const resumeAfterBurst = (
    options: { readonly historyCap?: number },
    burst: number,
    passing: Duration.Input,
  ) =>
    runOnTestClock(
      Effect.gen(function* () {
        const first = yield* send("POST", NS, cm("c0"));
        yield* send("POST", NS, cm("c1"));
        yield* TestClock.adjust(passing);
        for (let i = 2; i <= burst; i++) yield* send("POST", NS, cm(`c${i}`));
        return yield* watch(`${NS}?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`, 1);
      }),
      { historySize: 4, ...options },
    );

  it("keeps the events younger than the history window beyond the history size", async () => {
    const r = await resumeAfterBurst({}, 40, "74 seconds");
    expect(summary(r.events)).toEqual([["ADDED", "c1"]]);
  });

  it("forgets events beyond the history size once they are older than the window", async () => {
    const r = await resumeAfterBurst({}, 40, "76 seconds");
    expect(r.events[0].type).toBe("ERROR");
    expect(r.events[0].object.code).toBe(410);
  });

  it("forgets young events beyond the history cap", async () => {
    const r = await resumeAfterBurst({ historyCap: 10 }, 40, "0 seconds");
    expect(r.events[0].type).toBe("ERROR");
    expect(r.events[0].object.code).toBe(410);
  });

  it("applies selectors: leaving reads as DELETED, entering as ADDED", async () => {
    const r = await run(
      Effect.gen(function* () {
        const start = yield* send("POST", NS, cm("a", { labels: { app: "x" } }));
        yield* send(
          "PATCH",
          `${NS}/a`,
          { metadata: { labels: { app: "y" } } },
          { "content-type": "application/merge-patch+json" },
        );
        yield* send(
          "PATCH",
          `${NS}/a`,
          { metadata: { labels: { app: "x" } } },
          { "content-type": "application/merge-patch+json" },
        );
        yield* send("POST", NS, cm("other"));
        yield* send(
          "PATCH",
          `${NS}/a`,
          { data: { z: "1" } },
          { "content-type": "application/merge-patch+json" },
        );
        return yield* watch(
          `${NS}?watch=1&labelSelector=app%3Dx&resourceVersion=${Number(start.body.metadata.resourceVersion) - 1}`,
          4,
        );
      }),
    );
    expect(summary(r.events)).toEqual([
      ["ADDED", "a"],
      ["DELETED", "a"],
      ["ADDED", "a"],
      ["MODIFIED", "a"],
    ]);
    expect(r.events[1].object.metadata.labels).toEqual({ app: "x" });
  });

  it("ends the stream on dropWatches", async () => {
    const r = await run(
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        const response = yield* kube.handle(request("GET", `${NS}?watch=true`));
        if (response._tag !== "Streaming") throw new Error("not streaming");
        const fiber = yield* Effect.forkChild(Stream.runCollect(response.body));
        yield* Effect.yieldNow;
        yield* kube.dropWatches;
        return yield* Fiber.join(fiber);
      }),
    );
    expect([...r]).toEqual([]);
  });

  it("sends bookmarks on the Clock and ends at timeoutSeconds", async () => {
    const program = Effect.gen(function* () {
      const kube = yield* KubeEmulator;
      const created = yield* send("POST", NS, cm("a"));
      const response = yield* kube.handle(
        request(
          "GET",
          `${NS}?watch=true&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion=${created.body.metadata.resourceVersion}`,
        ),
      );
      if (response._tag !== "Streaming") throw new Error("not streaming");
      const fiber = yield* Effect.forkChild(Stream.runCollect(response.body));
      yield* Effect.yieldNow;
      yield* TestClock.adjust("61 seconds");
      yield* send("POST", NS, cm("b"));
      yield* TestClock.adjust("100 seconds");
      const chunks = yield* Fiber.join(fiber);
      return {
        events: [...chunks].map((c) => JSON.parse(new TextDecoder().decode(c))),
        rv: created.body.metadata.resourceVersion,
      };
    });
    const r = await runOnTestClock(program, { namespaceControllers: true, bookmarkInterval: "60 seconds" });
    expect(r.events.map((e) => e.type)).toEqual(["BOOKMARK", "ADDED", "BOOKMARK"]);
    expect(r.events[0].object).toEqual({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: r.rv },
    });
  });

  it("ends the initial events of sendInitialEvents with an annotated bookmark", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("a"));
        return yield* watch(
          `${NS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
          2,
        );
      }),
    );
    expect(r.events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    expect(r.events[1].object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
  });
});

describe("watch of a single object", () => {
  it.each([
    "/api/v1/watch/namespaces/default/configmaps/a",
    "/api/v1/namespaces/default/configmaps/a?watch=true",
  ])("%s sees only that object", async (url) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("b"));
        yield* send("POST", NS, cm("a"));
        return yield* watch(url, 1);
      }),
    );
    expect(summary(r.events)).toEqual([["ADDED", "a"]]);
  });
});
