// Covers KubeApi over a scripted transport: request paths, queries, headers and bodies of every
// operation; content types of each patch type; pagination; watch decoding (chunking, long lines,
// unknown types, error statuses); re-login on 401; retries and request timeouts in virtual time;
// the rate limit; events; discovery.
import { readFileSync } from "node:fs";
import { assert, describe, it } from "@effect/vitest";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Ref from "effect/Ref";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import type { ConnectionInfo } from "../src/ConnectionInfo.ts";
import { type ClientOptions, KubeApi } from "../src/KubeApi.ts";
import { KubeTransport, type TransportRequest } from "../src/KubeTransport.ts";
import { type Credentials, CredentialsVault } from "../src/Vault.ts";
import { type Answer, bodyOf, json, scripted, status, streaming } from "./fixtures/scriptedTransport.ts";

const info = (token: string, extra: Partial<ConnectionInfo> = {}): ConnectionInfo => ({
  server: "https://k8s.example:6443",
  token,
  priority: 0,
  trustEnv: false,
  ...extra,
});

// The User-Agent names the installed package's version (the client keeps it as a constant).
const VERSION: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

const pods = Resource.make({ group: "", version: "v1", plural: "pods", namespaced: true });
const widgets = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const nodes = Resource.make({ group: "", version: "v1", plural: "nodes", namespaced: false });

const noRetries = Settings.make({ networking: { errorBackoffs: [] } });

const harness = (
  handler: (request: TransportRequest, index: number) => Answer,
  options: { credentials?: Credentials; login?: Effect.Effect<Credentials>; client?: ClientOptions } = {},
) => {
  const transport = scripted(handler);
  const vault = CredentialsVault.layer({
    initial: options.credentials ?? { main: info("t0") },
    ...(options.login ? { login: options.login } : {}),
  });
  const layer = KubeApi.layer(options.client).pipe(
    Layer.provide(Layer.mergeAll(transport.layer, vault)),
    Layer.fresh,
  );
  const run = <A, E>(body: (api: KubeApi["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(KubeApi, body).pipe(Effect.provide(layer));
  return { requests: transport.requests, run };
};

/** Advance virtual time in small steps so that sleeps registered meanwhile fire in order. */
const advance = (seconds: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < seconds * 10; i++) yield* TestClock.adjust("100 millis");
  });

const settingsOr = (made: ReturnType<typeof Settings.make>) => {
  if (made._tag === "Failure") throw new Error("bad settings in the test");
  return made.success;
};

/** Three concurrent GETs through the harness, with these settings. */
const threeGets = (h: ReturnType<typeof harness>, settings: Settings.OperatorSettings) =>
  h
    .run((api) =>
      Effect.all(
        [1, 2, 3].map(() => api.get(pods, { namespace: "n", name: "p" })),
        { concurrency: 3 },
      ),
    )
    .pipe(Effect.provideService(OperatorSettings, settings));

describe("requests", () => {
  it.effect("get: path, headers and the parsed body", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, { kind: "Pod", metadata: { name: "p1" } }));
      const body = yield* h.run((api) => api.get(pods, { namespace: "ns1", name: "p1" }));
      assert.deepStrictEqual(body, { kind: "Pod", metadata: { name: "p1" } });
      const [request] = h.requests;
      assert.strictEqual(request?.method, "GET");
      assert.strictEqual(request?.path, "/api/v1/namespaces/ns1/pods/p1");
      assert.strictEqual(request?.headers.authorization, "Bearer t0");
      assert.strictEqual(request?.headers["user-agent"], `kopf/${VERSION}`);
      assert.strictEqual(request?.headers.accept, "application/json");
      assert.isUndefined(request?.body);
    }),
  );

  it.effect("names are percent-encoded; groups use /apis; subresources follow the name", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}));
      yield* h.run((api) => api.get(widgets, { namespace: "ns 1", name: "a/b", subresource: "status" }));
      assert.strictEqual(
        h.requests[0]?.path,
        "/apis/kopf.dev/v1/namespaces/ns%201/kopfexamples/a%2Fb/status",
      );
    }),
  );

  it.effect.each([
    ["a namespace for a cluster-scoped resource", nodes, { namespace: "ns1", name: "n1" }, /cluster-scoped/],
    ["an empty name", pods, { namespace: "ns1", name: "" }, /must not be empty/],
  ] as const)("refuses %s before sending", ([, resource, location, message]) =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}));
      const error = yield* Effect.flip(h.run((api) => api.get(resource, location)));
      assert.strictEqual(error._tag, "KubeApiError");
      assert.match(error.message, message);
      assert.strictEqual(h.requests.length, 0);
    }),
  );

  it.effect("list: one page with its query; cluster-wide without a namespace", () =>
    Effect.gen(function* () {
      const h = harness(() =>
        json(200, { kind: "PodList", metadata: { resourceVersion: "42" }, items: [{}] }),
      );
      const page = yield* h.run((api) =>
        api.list(pods, {
          labelSelector: "a=b,c",
          fieldSelector: "metadata.name=x",
          limit: 5,
          resourceVersion: "0",
        }),
      );
      assert.strictEqual(page.metadata?.resourceVersion, "42");
      assert.strictEqual(
        h.requests[0]?.path,
        "/api/v1/pods?labelSelector=a%3Db%2Cc&fieldSelector=metadata.name%3Dx&limit=5&resourceVersion=0",
      );
    }),
  );

  it.effect("listAll follows continue tokens", () =>
    Effect.gen(function* () {
      const h = harness((request) => {
        const token = new URLSearchParams(request.path.split("?")[1]).get("continue");
        const next = token === null ? "c1" : token === "c1" ? "c2" : undefined;
        return json(200, {
          metadata: { resourceVersion: "7", ...(next ? { continue: next } : {}) },
          items: [{ metadata: { name: token ?? "first" } }],
        });
      });
      const pages = yield* h.run((api) =>
        Stream.runCollect(api.listAll(widgets, { namespace: "ns1", limit: 1 })),
      );
      assert.deepStrictEqual(
        pages.map((page) => page.items[0]?.metadata?.name),
        ["first", "c1", "c2"],
      );
      assert.isTrue(pages.every((page) => page.metadata?.resourceVersion === "7"));
      assert.strictEqual(h.requests.length, 3);
    }),
  );

  it.effect("create posts the body to the object's namespace", () =>
    Effect.gen(function* () {
      const h = harness((request) => json(201, bodyOf(request)));
      const body = {
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        metadata: { name: "w", namespace: "ns2" },
      };
      const created = yield* h.run((api) => api.create(widgets, body, { fieldManager: "me", dryRun: true }));
      assert.deepStrictEqual(created, body);
      assert.strictEqual(h.requests[0]?.method, "POST");
      assert.strictEqual(
        h.requests[0]?.path,
        "/apis/kopf.dev/v1/namespaces/ns2/kopfexamples?fieldManager=me&dryRun=All",
      );
      assert.strictEqual(h.requests[0]?.headers["content-type"], "application/json");
    }),
  );

  it.effect.each([
    ["merge", { metadata: { labels: { a: "b" } } }, "application/merge-patch+json", ""],
    ["json", [{ op: "add", path: "/x", value: 1 }], "application/json-patch+json", ""],
    ["strategic", { spec: {} }, "application/strategic-merge-patch+json", ""],
    [
      "apply",
      { apiVersion: "v1", kind: "Pod" },
      "application/apply-patch+yaml",
      "?fieldManager=kopf&force=true",
    ],
  ] as const)("patch of type %s", ([type, body, contentType, query]) =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}));
      yield* h.run((api) =>
        api.patch(pods, { namespace: "ns", name: "p", subresource: "status" }, { type, body, force: true }),
      );
      assert.strictEqual(h.requests[0]?.method, "PATCH");
      assert.strictEqual(h.requests[0]?.path, `/api/v1/namespaces/ns/pods/p/status${query}`);
      assert.strictEqual(h.requests[0]?.headers["content-type"], contentType);
      assert.deepStrictEqual(bodyOf(h.requests[0]!), body);
    }),
  );

  it.effect("patchUnread sends what patch sends and does not decode the answer", () =>
    Effect.gen(function* () {
      // An answer that is not JSON: decoding it would fail the request.
      const h = harness(() => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: new TextEncoder().encode("{not json"),
      }));
      const location = { namespace: "ns", name: "w", subresource: "status" } as const;
      const spec = { type: "merge", body: { status: { ok: true } } } as const;
      const answer = yield* h.run((api) => api.patchUnread(widgets, location, spec, { fieldManager: "me" }));
      assert.strictEqual(answer, undefined);
      const decoded = yield* Effect.flip(
        h.run((api) => api.patch(widgets, location, spec, { fieldManager: "me" })),
      );
      assert.include(decoded.message, "Malformed JSON in the response to PATCH");
      const [unread, read] = h.requests;
      assert.strictEqual(unread?.method, "PATCH");
      assert.strictEqual(
        unread?.path,
        "/apis/kopf.dev/v1/namespaces/ns/kopfexamples/w/status?fieldManager=me",
      );
      assert.deepStrictEqual(
        [unread?.path, unread?.headers["content-type"], bodyOf(unread!)],
        [read?.path, read?.headers["content-type"], bodyOf(read!)],
      );
    }),
  );

  it.effect("patchUnread fails on an error status as patch does", () =>
    Effect.gen(function* () {
      const h = harness(() => status(404, 'widgets "w" not found'));
      const error = yield* Effect.flip(
        h.run((api) => api.patchUnread(widgets, { namespace: "ns", name: "w" }, { type: "merge", body: {} })),
      );
      assert.strictEqual(error._tag === "KubeApiError" && error.reason, "NotFound");
      assert.strictEqual(error.message, 'widgets "w" not found');
    }),
  );

  it.effect("delete sends DeleteOptions", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, { kind: "Status", status: "Success" }));
      yield* h.run((api) =>
        api.delete(nodes, { name: "n1" }, { propagationPolicy: "Foreground", preconditions: { uid: "u1" } }),
      );
      assert.strictEqual(h.requests[0]?.method, "DELETE");
      assert.strictEqual(h.requests[0]?.path, "/api/v1/nodes/n1");
      assert.deepStrictEqual(bodyOf(h.requests[0]!), {
        apiVersion: "v1",
        kind: "DeleteOptions",
        propagationPolicy: "Foreground",
        preconditions: { uid: "u1" },
      });
    }),
  );

  it.effect("error statuses fail with the mapped error", () =>
    Effect.gen(function* () {
      const h = harness(() => status(409, "already exists"));
      const error = yield* Effect.flip(
        h.run((api) => api.create(pods, { metadata: { name: "p", namespace: "n" } })),
      );
      assert.strictEqual(error._tag === "KubeApiError" && error.reason, "Conflict");
      assert.strictEqual(error.message, "already exists");
    }),
  );
});

describe("authentication", () => {
  it.effect("a 401 invalidates the credentials, logs in again and repeats the request", () =>
    Effect.gen(function* () {
      const logins = yield* Ref.make(0);
      const login = Ref.updateAndGet(logins, (n) => n + 1).pipe(Effect.map((n) => ({ main: info(`t${n}`) })));
      const h = harness(
        (request) => (request.headers.authorization === "Bearer t0" ? status(401) : json(200, { ok: 1 })),
        {
          login,
        },
      );
      const body = yield* h.run((api) => api.get(pods, { namespace: "n", name: "p" }));
      assert.deepStrictEqual(body, { ok: 1 });
      assert.deepStrictEqual(
        h.requests.map((r) => r.headers.authorization),
        ["Bearer t0", "Bearer t1"],
      );
      assert.strictEqual(yield* Ref.get(logins), 1);
    }),
  );

  it.effect("basic auth and client-certificate-only credentials", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}), {
        credentials: { basic: info("", { token: undefined, username: "u", password: "p", priority: 5 }) },
      });
      yield* h.run((api) => api.get(pods, { namespace: "n", name: "p" }));
      assert.strictEqual(h.requests[0]?.headers.authorization, "Basic dTpw");
    }),
  );
});

describe("retries and timeouts (virtual time)", () => {
  it.effect("5xx are retried with the configured backoffs, then succeed", () =>
    Effect.gen(function* () {
      const h = harness((_, index) => (index < 2 ? status(503) : json(200, { ok: true })));
      const settings = settingsOr(Settings.make({ networking: { errorBackoffs: [2, 3] } }));
      const fiber = yield* Effect.forkChild(
        h
          .run((api) => api.get(pods, { namespace: "n", name: "p" }))
          .pipe(Effect.provideService(OperatorSettings, settings)),
      );
      yield* advance(4.5);
      assert.strictEqual(h.requests.length, 2);
      yield* advance(1);
      assert.deepStrictEqual(yield* Fiber.join(fiber), { ok: true });
      assert.strictEqual(h.requests.length, 3);
    }),
  );

  it.effect("429 waits for Retry-After", () =>
    Effect.gen(function* () {
      const h = harness((_, index) =>
        index === 0 ? status(429, "slow down", { "retry-after": "7" }) : json(200, {}),
      );
      const fiber = yield* Effect.forkChild(h.run((api) => api.get(pods, { namespace: "n", name: "p" })));
      yield* advance(6.5);
      assert.strictEqual(h.requests.length, 1);
      yield* advance(1);
      yield* Fiber.join(fiber);
      assert.strictEqual(h.requests.length, 2);
    }),
  );

  it.effect("a request without an answer times out after networking.requestTimeout", () =>
    Effect.gen(function* () {
      const h = harness(() => Effect.never);
      const settings = settingsOr(Settings.make({ networking: { errorBackoffs: [], requestTimeout: 30 } }));
      const fiber = yield* Effect.forkChild(
        Effect.flip(h.run((api) => api.get(pods, { namespace: "n", name: "p" }))).pipe(
          Effect.provideService(OperatorSettings, settings),
        ),
      );
      yield* advance(29.5);
      assert.isUndefined(fiber.pollUnsafe());
      yield* advance(1);
      const error = yield* Fiber.join(fiber);
      assert.strictEqual(error._tag === "KubeApiError" && error.reason, "Timeout");
    }),
  );

  it.effect("a transport that keeps deadlines gets the request's timeout, and no timer races it", () =>
    Effect.gen(function* () {
      const sent: Array<TransportRequest> = [];
      const transport = Layer.succeed(
        KubeTransport,
        KubeTransport.of({
          request: (request) =>
            Effect.andThen(
              Effect.sync(() => sent.push(request)),
              Effect.never,
            ),
          stream: () => Effect.die("no streams here"),
          deadlines: true,
        }),
      );
      const layer = KubeApi.layer().pipe(
        Layer.provide(Layer.mergeAll(transport, CredentialsVault.layer({ initial: { main: info("t0") } }))),
        Layer.fresh,
      );
      const settings = settingsOr(Settings.make({ networking: { errorBackoffs: [], requestTimeout: 30 } }));
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(KubeApi, (api) => api.get(pods, { namespace: "n", name: "p" })).pipe(
          Effect.provide(layer),
          Effect.provideService(OperatorSettings, settings),
        ),
      );
      yield* advance(60);
      // Past the timeout in virtual time, still waiting: the deadline is the transport's to keep.
      assert.isUndefined(fiber.pollUnsafe());
      assert.strictEqual(sent.length, 1);
      assert.strictEqual(sent[0]?.timeout, 30_000);
      yield* Fiber.interrupt(fiber);
    }),
  );

  it.effect("a transport without deadlines is not given the request's timeout", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}));
      yield* h.run((api) => api.get(pods, { namespace: "n", name: "p" }));
      assert.isUndefined(h.requests[0]?.timeout);
    }),
  );

  it.effect("the rate limit spaces requests on Clock", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}), { client: { rateLimit: { qps: 1, burst: 1 } } });
      const fiber = yield* Effect.forkChild(
        h.run((api) =>
          Effect.all(
            [1, 2, 3].map(() => api.get(pods, { namespace: "n", name: "p" })),
            { concurrency: 3 },
          ),
        ),
      );
      yield* Effect.yieldNow;
      assert.strictEqual(h.requests.length, 1);
      yield* TestClock.adjust("1 second");
      assert.strictEqual(h.requests.length, 2);
      yield* TestClock.adjust("1 second");
      yield* Fiber.join(fiber);
      assert.strictEqual(h.requests.length, 3);
    }),
  );

  it.effect("the request timeout bounds the exchange, not the wait for the rate limit", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}), { client: { rateLimit: { qps: 1, burst: 1 } } });
      const settings = settingsOr(Settings.make({ networking: { errorBackoffs: [], requestTimeout: 0.5 } }));
      const fiber = yield* Effect.forkChild(threeGets(h, settings));
      // The third request waits ~2 s for its token, four times its timeout, and still succeeds.
      yield* advance(2.5);
      const results = yield* Fiber.join(fiber);
      assert.strictEqual(results.length, 3);
      assert.strictEqual(h.requests.length, 3);
    }),
  );

  it.effect("the rate limit can come from settings.networking.rateLimit", () =>
    Effect.gen(function* () {
      const h = harness(() => json(200, {}));
      const settings = settingsOr(Settings.make({ networking: { rateLimit: { qps: 2, burst: 1 } } }));
      const fiber = yield* Effect.forkChild(threeGets(h, settings));
      yield* Effect.yieldNow;
      assert.strictEqual(h.requests.length, 1);
      yield* TestClock.adjust("500 millis");
      assert.strictEqual(h.requests.length, 2);
      yield* TestClock.adjust("500 millis");
      yield* Fiber.join(fiber);
      assert.strictEqual(h.requests.length, 3);
    }),
  );
});

describe("watch", () => {
  const event = (type: string, name: string, rv: string) =>
    JSON.stringify({ type, object: { kind: "Pod", metadata: { name, resourceVersion: rv } } });

  it.effect("decodes events split anywhere, including multi-MiB lines and \\r\\n", () =>
    Effect.gen(function* () {
      const big = "x".repeat(3 * 1024 * 1024);
      const lines = [
        event("ADDED", "a", "1"),
        JSON.stringify({
          type: "MODIFIED",
          object: { metadata: { name: "big", resourceVersion: "2" }, data: big },
        }),
        event("BOOKMARK", "", "3"),
        JSON.stringify({ type: "WEIRD", object: {} }),
        event("DELETED", "ü-ñ", "4"),
      ];
      const text = new TextEncoder().encode(lines.join("\r\n") + "\n");
      const chunks: Array<Uint8Array> = [];
      for (let offset = 0, size = 1; offset < text.length; offset += size, size = size * 3 + 1) {
        chunks.push(text.subarray(offset, Math.min(text.length, offset + size)));
      }
      const h = harness(() => streaming(chunks));
      const events = yield* h.run((api) =>
        Stream.runCollect(api.watch(pods, { namespace: "ns", resourceVersion: "0" })),
      );
      assert.deepStrictEqual(
        events.map((e) => [e.type, e.object.metadata?.name]),
        [
          ["ADDED", "a"],
          ["MODIFIED", "big"],
          ["BOOKMARK", ""],
          ["DELETED", "ü-ñ"],
        ],
      );
      assert.strictEqual(String(events[1]?.object.data ?? "").length, big.length);
    }),
  );

  it.effect("sends watch, bookmarks, the resourceVersion and the server timeout", () =>
    Effect.gen(function* () {
      const h = harness(() => streaming([]));
      const settings = settingsOr(Settings.make({ watching: { serverTimeout: 60 } }));
      yield* h
        .run((api) => Stream.runDrain(api.watch(widgets, { resourceVersion: "5", labelSelector: "a" })))
        .pipe(Effect.provideService(OperatorSettings, settings));
      assert.strictEqual(
        h.requests[0]?.path,
        "/apis/kopf.dev/v1/kopfexamples?watch=true&allowWatchBookmarks=true&resourceVersion=5&timeoutSeconds=60&labelSelector=a",
      );
    }),
  );

  it.effect("an error status when opening fails the stream with the mapped error (not retried)", () =>
    Effect.gen(function* () {
      const h = harness(() =>
        streaming([JSON.stringify({ kind: "Status", code: 410, message: "gone" })], 410),
      );
      const error = yield* Effect.flip(h.run((api) => Stream.runDrain(api.watch(pods))));
      assert.strictEqual(error._tag === "KubeApiError" && error.reason, "Gone");
      assert.strictEqual(error.message, "gone");
      assert.strictEqual(h.requests.length, 1);
    }),
  );

  it.effect("a 401 when opening re-authenticates and opens it again", () =>
    Effect.gen(function* () {
      const h = harness(
        (request) =>
          request.headers.authorization === "Bearer t0" ? status(401) : streaming([event("ADDED", "a", "1")]),
        { login: Effect.succeed({ main: info("t1") }) },
      );
      const events = yield* h.run((api) => Stream.runCollect(api.watch(pods)));
      assert.strictEqual(events.length, 1);
      assert.strictEqual(h.requests.length, 2);
    }),
  );

  it.effect("watching.clientTimeout ends the watch request quietly (virtual time)", () =>
    Effect.gen(function* () {
      const h = harness(() => ({
        streaming: true,
        status: 200,
        headers: {},
        body: Stream.concat(
          Stream.make(new TextEncoder().encode(event("ADDED", "a", "1") + "\n")),
          Stream.never,
        ),
      }));
      const settings = settingsOr(Settings.make({ watching: { clientTimeout: 5 } }));
      const fiber = yield* Effect.forkChild(
        h
          .run((api) => Stream.runCollect(api.watch(pods)))
          .pipe(Effect.provideService(OperatorSettings, settings)),
      );
      yield* advance(4.5);
      assert.isUndefined(fiber.pollUnsafe());
      yield* advance(1);
      const events = yield* Fiber.join(fiber);
      assert.deepStrictEqual(
        events.map((e) => e.object.metadata?.name),
        ["a"],
      );
    }),
  );

  it.effect("a malformed line fails the stream with a TransportError", () =>
    Effect.gen(function* () {
      const h = harness(() => streaming([event("ADDED", "a", "1") + "\n{not json\n"]));
      const error = yield* Effect.flip(h.run((api) => Stream.runDrain(api.watch(pods))));
      assert.strictEqual(error._tag === "KubeApiError" && error.reason, "TransportError");
    }),
  );
});

describe("events", () => {
  it.effect("posts a core v1 Event to the object's namespace with Kopf's fields", () =>
    Effect.gen(function* () {
      const h = harness(() => json(201, {}));
      yield* TestClock.setTime(Date.UTC(2020, 11, 31, 23, 59, 59, 123));
      yield* h.run((api) =>
        api.postEvent(
          { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "w", uid: "u1", namespace: "ns1" },
          { type: "Normal", reason: "Done", message: "start" + "x".repeat(2048) + "end" },
        ),
      );
      const request = h.requests[0]!;
      assert.strictEqual(request.path, "/api/v1/namespaces/ns1/events");
      const body = bodyOf(request) as Record<string, any>;
      assert.deepStrictEqual(body.metadata, { namespace: "ns1", generateName: "kopf-event-" });
      assert.deepStrictEqual(body.involvedObject, {
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        name: "w",
        uid: "u1",
        namespace: "ns1",
      });
      assert.deepStrictEqual(body.source, { component: "kopf" });
      assert.strictEqual(body.reportingComponent, "kopf");
      assert.strictEqual(body.reportingInstance, "dev");
      assert.strictEqual(body.type, "Normal");
      assert.strictEqual(body.reason, "Done");
      assert.strictEqual(body.message.length, 1024);
      assert.isTrue(
        body.message.startsWith("start") && body.message.endsWith("end") && body.message.includes("..."),
      );
      assert.strictEqual(body.eventTime, "2020-12-31T23:59:59.123000+00:00");
    }),
  );

  it.effect("cluster-scoped objects use the credentials' default namespace, else default", () =>
    Effect.gen(function* () {
      const withDefault = harness(() => json(201, {}), {
        credentials: { c: info("t", { defaultNamespace: "mine" }) },
      });
      yield* withDefault.run((api) =>
        api.postEvent({ apiVersion: "v1", kind: "Node", name: "n" }, { type: "Normal", reason: "R" }),
      );
      assert.strictEqual(withDefault.requests[0]?.path, "/api/v1/namespaces/mine/events");
      const without = harness(() => json(201, {}));
      yield* without.run((api) =>
        api.postEvent({ apiVersion: "v1", kind: "Node", name: "n" }, { type: "Normal", reason: "R" }),
      );
      assert.strictEqual(without.requests[0]?.path, "/api/v1/namespaces/default/events");
    }),
  );

  it.effect("API failures are swallowed; events about v1 Events are skipped", () =>
    Effect.gen(function* () {
      const h = harness(() => status(403, "forbidden"));
      yield* h
        .run((api) =>
          Effect.all([
            api.postEvent(
              { apiVersion: "v1", kind: "Pod", name: "p", namespace: "n" },
              { type: "Warning", reason: "R" },
            ),
            api.postEvent(
              { apiVersion: "v1", kind: "Event", name: "e", namespace: "n" },
              { type: "Normal", reason: "R" },
            ),
          ]),
        )
        .pipe(Effect.provideService(OperatorSettings, settingsOr(noRetries)));
      assert.strictEqual(h.requests.length, 1);
    }),
  );
});

describe("discovery", () => {
  it.effect("scans /api and /apis; 404 group-versions count as empty; preferred versions marked", () =>
    Effect.gen(function* () {
      const resource = (name: string) => ({ name, kind: name, namespaced: true, verbs: ["list", "watch"] });
      const h = harness((request) => {
        switch (request.path) {
          case "/api":
            return json(200, { kind: "APIVersions", versions: ["v1"] });
          case "/api/v1":
            return json(200, { resources: [resource("pods"), resource("pods/status")] });
          case "/apis":
            return json(200, {
              groups: [
                { name: "apps", versions: [{ version: "v1" }], preferredVersion: { version: "v1" } },
                {
                  name: "kopf.dev",
                  versions: [{ version: "v1" }, { version: "v1beta1" }],
                  preferredVersion: { version: "v1" },
                },
              ],
            });
          case "/apis/apps/v1":
            return json(200, { resources: [resource("deployments")] });
          case "/apis/kopf.dev/v1":
            return json(200, { resources: [resource("kopfexamples")] });
          default:
            return status(404);
        }
      });
      const all = yield* h.run((api) => api.discover());
      assert.deepStrictEqual(
        all.map((gv) => [gv.group, gv.version, gv.preferred, gv.resources.map((r) => r.name)]),
        [
          ["", "v1", true, ["pods", "pods/status"]],
          ["apps", "v1", true, ["deployments"]],
          ["kopf.dev", "v1", true, ["kopfexamples"]],
          ["kopf.dev", "v1beta1", false, []],
        ],
      );
      const some = yield* h.run((api) => api.discover({ groups: ["kopf.dev"] }));
      assert.deepStrictEqual(
        some.map((gv) => gv.group),
        ["kopf.dev", "kopf.dev"],
      );
    }),
  );
});
