/**
 * Example 18 through KopfRunner on the selected cluster (the emulator in the default suite, a real
 * kube-apiserver in the real tier). An object stored before the operator and its schema (under a
 * permissive CRD) does not decode: it gets a Warning event naming the field and the handler is not
 * called. With the generated CRD, its conversion webhook pointed at the operator's admission
 * server (on 127.0.0.1, with the server's CA as `caBundle`), a new object gets the server's
 * defaults and the typed handler's status; the typed validating webhook rejects a small tier with
 * many replicas; an object written in v1 is read back in v2, and one written in v2 is read back in
 * v1, converted by the operator's webhook.
 *
 * A real API server calls the conversion webhook itself. The emulator does not call conversion
 * webhooks (docs/emulator-deviations.md): there, the test does the API server's part and sends
 * the same ConversionReviews to the operator's server, storing and reading the storage version.
 */
import { request } from "node:https";
import { ConfigManager } from "@kopf/admission";
import { WebhookAdmission } from "@kopf/emulator";
import { Crd } from "@kopf/resources";
import { Resource } from "@kopf/structs";
import { Applying, Clusters, KopfRunner } from "@kopf/testing";
import { Effect, Layer, Result } from "effect";
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
const collection = (version: string) => `/apis/kopf.dev/${version}/namespaces/default/kopftypeds`;
const COLLECTION = collection("v2");

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

/** Writing and reading in a given version, each version's bodies converted by the webhook. */
interface Versions {
  readonly create: (version: string, body: unknown) => Promise<any>;
  readonly get: (version: string, name: string) => Promise<any>;
}

const answer = (response: { status: number; body: any }) => {
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
};

/** A real API server: it calls the conversion webhook for every version it does not store. */
const throughTheServer = (runner: KopfRunner.KopfRunner): Versions => ({
  create: async (version, body) => answer(await runner.request("POST", collection(version), body)),
  get: async (version, name) => answer(await runner.request("GET", `${collection(version)}/${name}`)),
});

/**
 * The emulator, which stores and serves the storage version (v2) only: the API server's part —
 * a ConversionReview to the operator's server for each body in another version — done here.
 */
const convertingHere = (runner: KopfRunner.KopfRunner, url: string, ca: string): Versions => {
  const convert = async (desiredAPIVersion: string, object: unknown) => {
    const review = await postJson(
      url,
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: { uid: "u1", desiredAPIVersion, objects: [object] },
      },
      ca,
    );
    expect(review.json.response.result).toEqual({ status: "Success" });
    return review.json.response.convertedObjects[0];
  };
  const inVersion = (version: string, body: unknown) =>
    version === "v2" ? body : convert(`kopf.dev/${version}`, body);
  return {
    create: async (version, body) =>
      inVersion(
        version,
        answer(
          await runner.request(
            "POST",
            COLLECTION,
            version === "v2" ? body : await convert("kopf.dev/v2", body),
          ),
        ),
      ),
    get: async (version, name) =>
      inVersion(version, answer(await runner.request("GET", `${COLLECTION}/${name}`))),
  };
};

it("a typed resource: decoding warnings, defaults, typed status, a typed webhook, conversion", async () => {
  await using cluster = await Clusters.build(
    Clusters.selected({ emulator: () => Clusters.inProcess().pipe(Layer.provide(WebhookAdmission.layer)) }),
  );
  // Stored before the operator and the schema: the namespace, a permissive CRD, and an object
  // with a `replicas` that the Schema does not accept.
  await Effect.runPromise(
    Applying.apply([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } },
      permissive,
      typed("kopf-typed-old", { replicas: "many" }),
    ]).pipe(Effect.provide(cluster.context)),
  );
  const runner = await KopfRunner.start({
    registry: kopf.getDefaultRegistry(),
    cluster,
    namespaces: ["default"],
    settings: { admission: { server: kopf.WebhookServer({ addr: "127.0.0.1" }) } },
  });

  // It does not decode, so a Warning names the field; no handler ran.
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
  const ready = (name: string) =>
    runner.waitFor(typeds, name, "default", (b: any) => b?.status?.phase === "Ready");
  expect((await ready("kopf-typed-1"))?.status).toMatchObject({ phase: "Ready", replicas: 3 });

  // The typed validating webhook.
  const rejected = await runner.request("POST", COLLECTION, typed("kopf-typed-2", { replicas: 7 }));
  expect(rejected.body.message).toContain("A small tier runs at most 5 replicas.");

  // Conversion, both ways: written in v1, read in v2; written in v2, read in v1.
  const versions = Clusters.isEmulator()
    ? convertingHere(
        runner,
        `${base}/convert/kopf.dev/kopftypeds`,
        Buffer.from(caBundle, "base64").toString(),
      )
    : throughTheServer(runner);
  const written = await versions.create("v1", {
    apiVersion: "kopf.dev/v1",
    kind: "KopfTyped",
    metadata: { name: "kopf-typed-3", namespace: "default" },
    spec: { size: 8, mode: "fast" },
  });
  expect(written.apiVersion).toBe("kopf.dev/v1");
  expect(written.spec).toEqual({ size: 8, mode: "fast" });
  const upward = await versions.get("v2", "kopf-typed-3");
  expect(upward.apiVersion).toBe("kopf.dev/v2");
  expect(upward.spec).toEqual({ replicas: 8, mode: "fast", tier: "large" });
  const downward = await versions.get("v1", "kopf-typed-1");
  expect(downward.apiVersion).toBe("kopf.dev/v1");
  expect(downward.spec).toEqual({ size: 3, mode: "safe" });
  expect(downward.status).toMatchObject({ phase: "Ready", replicas: 3 });
  expect(downward.metadata.name).toBe("kopf-typed-1");
  // The operator handled the object written in v1, as a v2 body.
  expect((await ready("kopf-typed-3"))?.status).toMatchObject({ phase: "Ready", replicas: 8 });

  await runner.stop();
  expect(runner.exitCode).toBe(0);
});
