// Evidence over plain HTTP(S) against the real core: exact status codes and bodies for 401, 413
// and 404, watch streaming (chunked JSON lines), injected failures, dropped watches, compacted
// history (410 on resume), pause/resume with data kept, and admission webhooks end to end
// (mutation, denial with the webhook's message, Warning headers).
import { request as httpRequest } from "node:http";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Queue from "effect/Queue";
import { patchOf, respond, webhookServer } from "../admission/support.ts";
import { type Running, startEmulator } from "../kubectl/support.ts";
import { call, json } from "./support.ts";

const configMap = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data: { a: "b" } });

const post = (running: Running, path: string, body: string) =>
  call(running.server, path, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", authorization: "Bearer t" },
  });

/** Opens a plain-HTTP watch and queues each received line. */
const openWatch = (running: Running, path: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const lines = yield* Queue.unbounded<string>();
      const meta = yield* Queue.unbounded<string>();
      const req = httpRequest(
        new URL(path, running.server.url),
        { agent: false, headers: { authorization: "Bearer t" } },
        (res) => {
          Queue.offerUnsafe(
            meta,
            `${res.statusCode} ${res.headers["content-type"]} ${res.headers["transfer-encoding"]}`,
          );
          let buffer = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buffer += chunk;
            for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
              Queue.offerUnsafe(lines, buffer.slice(0, at));
              buffer = buffer.slice(at + 1);
            }
          });
          res.on("end", () => Queue.offerUnsafe(lines, "<end>"));
        },
      );
      req.on("error", () => Queue.offerUnsafe(lines, "<error>"));
      req.end();
      return { lines, meta, req };
    }),
    ({ req }) => Effect.sync(() => req.destroy()),
  );

const take = <A>(queue: Queue.Queue<A>) => Queue.take(queue).pipe(Effect.timeout("5 seconds"));

const withEmulator = <A, E, R>(body: (running: Running) => Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.flatMap(startEmulator({ tls: false, token: "t" }), body));

describe("the emulator over plain HTTP", () => {
  it.live("answers 401, 413 and 404 with the real Status bodies", () =>
    withEmulator((running) =>
      Effect.gen(function* () {
        const unauthorized = yield* call(running.server, "/api/v1/namespaces");
        assert.strictEqual(unauthorized.status, 401);
        assert.strictEqual(
          unauthorized.body,
          '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
        );
        const tooLarge = yield* post(
          running,
          "/api/v1/namespaces/default/configmaps",
          "x".repeat(3 * 1024 * 1024 + 1),
        );
        assert.strictEqual(tooLarge.status, 413);
        assert.deepStrictEqual(json(tooLarge), {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Request entity too large: limit is 3145728",
          reason: "RequestEntityTooLarge",
          code: 413,
        });
        const missing = yield* call(running.server, "/api/v1/namespaces/default/configmaps/nope", {
          headers: { authorization: "Bearer t" },
        });
        assert.strictEqual(missing.status, 404);
        assert.deepStrictEqual(json(missing), {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'configmaps "nope" not found',
          reason: "NotFound",
          details: { name: "nope", kind: "configmaps" },
          code: 404,
        });
      }),
    ),
  );

  it.live(
    "streams watch events as chunked JSON lines, ends them on drop, and answers 410 after compaction",
    () =>
      withEmulator((running) =>
        Effect.gen(function* () {
          const created = json(
            yield* post(running, "/api/v1/namespaces/default/configmaps", configMap("first")),
          );
          const firstRv = (created.metadata as { resourceVersion: string }).resourceVersion;
          const watch = yield* openWatch(
            running,
            `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${firstRv}`,
          );
          assert.strictEqual(yield* take(watch.meta), "200 application/json chunked");
          yield* post(running, "/api/v1/namespaces/default/configmaps", configMap("second"));
          const event = JSON.parse(yield* take(watch.lines));
          assert.strictEqual(event.type, "ADDED");
          assert.strictEqual(event.object.metadata.name, "second");
          yield* call(running.server, "/.emulator/watches/drop", {
            method: "POST",
            headers: { authorization: "Bearer t" },
          });
          assert.strictEqual(yield* take(watch.lines), "<end>");
          yield* running.server.control.compactHistory;
          const stale = yield* openWatch(
            running,
            `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${firstRv}`,
          );
          yield* take(stale.meta);
          const gone = JSON.parse(yield* take(stale.lines));
          assert.strictEqual(gone.type, "ERROR");
          assert.strictEqual(gone.object.code, 410);
          assert.strictEqual(gone.object.reason, "Expired");
        }),
      ),
  );

  it.live("injected failures answer before the core; pausing keeps the data", () =>
    withEmulator((running) =>
      Effect.gen(function* () {
        yield* running.server.control.injectFailure({
          status: 500,
          verb: "create",
          resource: "configmaps",
          times: 1,
        });
        assert.strictEqual(
          (yield* post(running, "/api/v1/namespaces/default/configmaps", configMap("c1"))).status,
          500,
        );
        assert.strictEqual(
          (yield* post(running, "/api/v1/namespaces/default/configmaps", configMap("c1"))).status,
          201,
        );
        yield* running.server.control.restart;
        const kept = yield* call(running.server, "/api/v1/namespaces/default/configmaps/c1", {
          headers: { authorization: "Bearer t" },
        });
        assert.strictEqual(kept.status, 200);
        assert.deepStrictEqual(json(kept).data, { a: "b" });
      }),
    ),
  );

  it.live(
    "calls admission webhooks: mutation applied, denial with the webhook's message, warnings as headers",
    () =>
      withEmulator((running) =>
        Effect.gen(function* () {
          const hooks = yield* webhookServer((review, path) =>
            path.startsWith("/mutate")
              ? respond(review, {
                  patchType: "JSONPatch",
                  patch: patchOf([{ op: "add", path: "/data/mutated", value: "yes" }]),
                  warnings: ["mutated it"],
                })
              : review.request.object.metadata.name === "forbidden"
                ? respond(review, {
                    allowed: false,
                    status: { code: 403, message: "this name is not allowed" },
                  })
                : respond(review),
          );
          const rules = [
            { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
          ];
          const webhook = (name: string, path: string) => ({
            name,
            rules,
            clientConfig: { url: `${hooks.url}${path}`, caBundle: hooks.caBundle },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          });
          yield* running.emulator.apply([
            {
              apiVersion: "admissionregistration.k8s.io/v1",
              kind: "MutatingWebhookConfiguration",
              metadata: { name: "m" },
              webhooks: [webhook("m.kopf.dev", "/mutate")],
            },
            {
              apiVersion: "admissionregistration.k8s.io/v1",
              kind: "ValidatingWebhookConfiguration",
              metadata: { name: "v" },
              webhooks: [webhook("v.kopf.dev", "/validate")],
            },
          ]);
          const allowed = yield* post(running, "/api/v1/namespaces/default/configmaps", configMap("fine"));
          assert.strictEqual(allowed.status, 201);
          assert.deepStrictEqual(json(allowed).data, { a: "b", mutated: "yes" });
          assert.strictEqual(allowed.headers.warning, '299 - "mutated it"');
          const denied = yield* post(
            running,
            "/api/v1/namespaces/default/configmaps",
            configMap("forbidden"),
          );
          assert.strictEqual(denied.status, 403);
          assert.strictEqual(
            json(denied).message,
            'admission webhook "v.kopf.dev" denied the request: this name is not allowed',
          );
          assert.strictEqual(hooks.reviews.length, 4);
        }),
      ),
  );
});
