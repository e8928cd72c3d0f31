/**
 * Example 18 through KopfRunner on the selected cluster. An object stored before the schema
 * change (under a permissive CRD) does not decode: it gets a Warning event naming the field and
 * the handler is not called. With the generated CRD (its conversion webhook pointed at the
 * operator's admission server), a new object gets the server's defaults and the typed handler's
 * status; the typed validating webhook rejects a small tier with many replicas; and the
 * operator's server converts the stored v2 object to v1 and back as the API server asks it to.
 */
import { request } from "node:https";
import { ConfigManager } from "@kopf/admission";
import { WebhookAdmission } from "@kopf/emulator";
import { Crd } from "@kopf/resources";
import { Resource } from "@kopf/structs";
import { Clusters, KopfRunner } from "@kopf/testing";
import { Layer, Result } from "effect";
import * as kopf from "kopf";
import { expect, it } from "vitest";
import "../src/handlers.ts";
import { KopfTyped } from "../src/resources.ts";

const typeds = Resource.make({
  group: "kopf.dev",
  version: "v2",
  plural: "kopftypeds",
  kind: "KopfTyped",
  namespaced: true,
});
const COLLECTION = "/apis/kopf.dev/v2/namespaces/default/kopftypeds";

/** The CRD before the schema: both versions, anything accepted. */
const permissive = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "kopftypeds.kopf.dev" },
  spec: {
    group: "kopf.dev",
    scope: "Namespaced",
    names: { kind: "KopfTyped", plural: "kopftypeds", singular: "kopftyped", listKind: "KopfTypedList" },
    versions: ["v1", "v2"].map((name) => ({
      name,
      served: true,
      storage: name === "v2",
      subresources: { status: {} },
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    })),
  },
};

const typed = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "kopf.dev/v2",
  kind: "KopfTyped",
  metadata: { name, namespace: "default" },
  spec,
});

const postJson = (url: string, body: unknown, ca: string) =>
  new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = request(
      new URL(url),
      { method: "POST", ca, agent: false, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Array<Buffer> = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });

it("a typed resource: decoding warnings, defaults, typed status, a typed webhook, conversion", async () => {
  await using cluster = await Clusters.build(
    Clusters.selected({ emulator: () => Clusters.inProcess().pipe(Layer.provide(WebhookAdmission.layer)) }),
  );
  const runner = await KopfRunner.start({
    registry: kopf.getDefaultRegistry(),
    cluster,
    namespaces: ["default"],
    settings: { admission: { server: kopf.WebhookServer({ addr: "127.0.0.1" }) } },
  });
  await runner.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }, permissive]);

  // Stored before the schema: it does not decode, so a Warning names the field; no handler ran.
  expect(
    (await runner.request("POST", COLLECTION, typed("kopf-typed-old", { replicas: "many" }))).status,
  ).toBe(201);
  await runner.waitForOutput("The object does not decode as kopf.dev/v2: spec.replicas:");
  const warnings = async () =>
    (await runner.list(KopfRunner.events, "default")).filter(
      (e: any) => e.involvedObject?.name === "kopf-typed-old" && e.type === "Warning",
    );
  for (let i = 0; i < 100 && (await warnings()).length === 0; i++)
    await new Promise((done) => setTimeout(done, 100));
  expect((await warnings()).map((e: any) => e.message)).toContainEqual(
    expect.stringContaining("The object does not decode as kopf.dev/v2: spec.replicas:"),
  );
  expect((await runner.get(typeds, "kopf-typed-old", "default"))?.status?.phase).toBeUndefined();

  // The operator's admission server, from the managed validating configuration.
  const vwc: any = await runner.waitFor(
    ConfigManager.configurationResource("validating"),
    "typed.kopf.dev",
    undefined,
    (b: any) => (b?.webhooks ?? []).length === 1,
  );
  const { url, caBundle } = vwc.webhooks[0].clientConfig as { url: string; caBundle: string };
  const base = url.slice(0, url.lastIndexOf("/"));
  const crd = Result.getOrThrow(
    Crd.fromResource(KopfTyped, {
      conversionClientConfig: { url: `${base}/convert/kopf.dev/kopftypeds`, caBundle },
    }),
  );
  await runner.apply([crd]);

  // A new object: the server's defaults, the typed handler's status.
  const created = await runner.request("POST", COLLECTION, typed("kopf-typed-1", { replicas: 3 }));
  expect(created.status).toBe(201);
  expect(created.body.spec).toEqual({ replicas: 3, mode: "safe", tier: "small" });
  const handled = await runner.waitFor(
    typeds,
    "kopf-typed-1",
    "default",
    (b: any) => b?.status?.phase === "Ready",
  );
  expect(handled?.status).toMatchObject({ phase: "Ready", replicas: 3 });

  // The typed validating webhook.
  const rejected = await runner.request("POST", COLLECTION, typed("kopf-typed-2", { replicas: 7 }));
  expect(rejected.body.message).toContain("A small tier runs at most 5 replicas.");

  // The conversion webhook, as the API server calls it: v2 to v1 and back.
  const ca = Buffer.from(caBundle, "base64").toString("utf8");
  const convert = (desiredAPIVersion: string, objects: ReadonlyArray<unknown>) =>
    postJson(
      `${base}/convert/kopf.dev/kopftypeds`,
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: { uid: "u1", desiredAPIVersion, objects },
      },
      ca,
    );
  const down = await convert("kopf.dev/v1", [handled]);
  expect(down.status).toBe(200);
  expect(down.json.response.result).toEqual({ status: "Success" });
  const [v1] = down.json.response.convertedObjects;
  expect(v1.apiVersion).toBe("kopf.dev/v1");
  expect(v1.spec).toEqual({ size: 3, mode: "safe" });
  expect(v1.status).toMatchObject({ phase: "Ready", replicas: 3 });
  expect(v1.metadata.name).toBe("kopf-typed-1");
  const up = await convert("kopf.dev/v2", [{ ...v1, spec: { size: 8, mode: "fast" } }]);
  expect(up.json.response.convertedObjects[0].spec).toEqual({ replicas: 8, mode: "fast", tier: "large" });

  await runner.stop();
  expect(runner.exitCode).toBe(0);
});
