/**
 * The webhook server answers ConversionReviews at `{path}/convert/{group}/{plural}` with the
 * conversion of the typed resource declared there, over HTTPS with the reported CA bundle, next
 * to the AdmissionReviews it serves.
 */
import { request } from "node:https";
import { assert, describe, it } from "@effect/vitest";
import { Registry } from "@kopf/registry";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { type ClientConfig, Serving, WebhookServer } from "../../src/index.ts";
import { Widget } from "../fixtures/widget.ts";

const postJson = (url: string, body: unknown, ca: string) =>
  new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const req = request(
      new URL(url),
      { method: "POST", ca, agent: false, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Array<Buffer> = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, json: text.startsWith("{") ? JSON.parse(text) : text });
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });

describe("conversion over the webhook server", () => {
  it.live("converts the objects of a ConversionReview POSTed to the resource's path", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const registry = Registry.make();
        registry.declare(Widget);
        const fn = yield* Serving.make({ registry, resources: () => [], memo: {} });
        const first = yield* Deferred.make<ClientConfig>();
        const server = WebhookServer.make({ addr: "127.0.0.1", path: "/hooks" });
        yield* Effect.forkScoped(
          Stream.runForEach(server.serve(fn), (c) => Deferred.succeed(first, c)).pipe(Effect.orDie),
        );
        const config = yield* Deferred.await(first);
        const ca = Buffer.from(config.caBundle ?? "", "base64").toString("utf8");
        const review = {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "ConversionReview",
          request: {
            uid: "c1",
            desiredAPIVersion: "kopf.dev/v1",
            objects: [
              { apiVersion: "kopf.dev/v2", kind: "Widget", metadata: { name: "w" }, spec: { replicas: 3 } },
            ],
          },
        };
        const ok = yield* Effect.promise(() =>
          postJson(`${config.url}/convert/kopf.dev/widgets`, review, ca),
        );
        assert.strictEqual(ok.status, 200);
        assert.deepStrictEqual((ok.json as { response: unknown }).response, {
          uid: "c1",
          convertedObjects: [
            { apiVersion: "kopf.dev/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 3 } },
          ],
          result: { status: "Success" },
        });
        const elsewhere = yield* Effect.promise(() =>
          postJson(`${config.url}/convert/kopf.dev/gadgets`, review, ca),
        );
        assert.strictEqual(elsewhere.status, 404);
      }),
    ),
  );
});
