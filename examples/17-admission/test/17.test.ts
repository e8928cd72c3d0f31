/**
 * Example 17 through KopfRunner on the emulator, which calls the operator's webhooks on real
 * create requests as a real API server does: the managed configurations point at the webhook
 * server; a validating handler rejects objects with its message and code; the mutating
 * handler's change is visible in the stored object; warnings reach the client.
 */
import { ConfigManager } from "@kopf/admission";
import {
  Clusters,
  EmulatorTransport,
  FaultInjector,
  KopfRunner,
  KubeEmulator,
  WebhookAdmission,
} from "@kopf/testing";
import { Effect, Layer } from "effect";
import * as kopf from "kopf";
import { expect, it } from "vitest";
import "../src/handlers.ts";

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "kopfexamples.kopf.dev" },
  spec: {
    scope: "Namespaced",
    group: "kopf.dev",
    names: { kind: "KopfExample", plural: "kopfexamples", singular: "kopfexample", shortNames: ["kex"] },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

const example = (name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name, namespace: "default", labels },
  spec,
});

it("validates and mutates real requests through the operator's webhooks", async () => {
  await using cluster = await Clusters.build(
    EmulatorTransport.client().pipe(
      Layer.provideMerge(
        Layer.mergeAll(KubeEmulator.layer({ admission: WebhookAdmission.hook }), FaultInjector.layer),
      ),
    ),
  );
  // The startup handler keeps a server configured beforehand: here, one on the loopback.
  const runner = await KopfRunner.start({
    registry: kopf.getDefaultRegistry(),
    cluster,
    namespaces: ["default"],
    settings: { admission: { server: kopf.WebhookServer({ addr: "127.0.0.1" }) } },
  });
  await runner.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }, CRD]);

  // Creates an object as kubectl does (one request, no client-side retries of 5xx answers).
  const create = async (body: unknown) => {
    const response = await runner.run(
      Effect.flatMap(KubeEmulator, (emulator) =>
        emulator.handle({
          method: "POST",
          path: "/apis/kopf.dev/v1/namespaces/default/kopfexamples",
          query: new URLSearchParams(),
          headers: { "content-type": "application/json" },
          body: new TextEncoder().encode(JSON.stringify(body)),
          user: { username: "tester", groups: ["system:authenticated"] },
        }),
      ),
    );
    if (response._tag !== "Complete") throw new Error("a streaming response to a create request");
    return {
      status: response.status,
      body: JSON.parse(new TextDecoder().decode(response.body)),
      warning: response.headers.warning ?? "",
    };
  };

  // The managed configurations point at the server: 3 validating webhooks, 1 mutating.
  const vwc = await runner.waitFor(
    ConfigManager.configurationResource("validating"),
    "auto.kopf.dev",
    undefined,
    (b: any) => (b?.webhooks ?? []).length === 3,
  );
  expect((vwc as any).webhooks.map((w: any) => w.name)).toEqual([
    "authhook.auto.kopf.dev",
    "validate1.auto.kopf.dev",
    "validate2.spec.field.auto.kopf.dev",
  ]);
  expect((vwc as any).webhooks[0].clientConfig.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/authhook$/);
  expect((vwc as any).webhooks[0].clientConfig.caBundle).toBeTruthy();

  // Validating handlers reject objects with their messages and codes.
  const wrong = await create(example("kopf-example-wrong", { field: "wrong" }));
  expect(wrong.status).toBe(500);
  expect(wrong.body.message).toContain("Meh! I don't like it. Change the field.");
  const lazy = await create(example("kopf-example-lazy", { field: "not-allowed" }));
  expect(lazy.status).toBe(555);
  expect(lazy.body.message).toContain("I'm too lazy anyway. Go away!");
  expect(await runner.get(KopfRunner.kopfExamples, "kopf-example-wrong", "default")).toBeUndefined();
  expect(await runner.get(KopfRunner.kopfExamples, "kopf-example-lazy", "default")).toBeUndefined();

  // The mutating handler's change is stored (for labelled objects only); warnings reach the client.
  const labelled = await create(example("kopf-example-1", { field: "value" }, { somelabel: "somevalue" }));
  expect(labelled.status).toBe(201);
  expect(labelled.warning).toContain("SSL peer is not identified.");
  expect((await runner.get(KopfRunner.kopfExamples, "kopf-example-1", "default"))?.spec).toEqual({
    field: "value",
    injected: 123,
  });
  const plain = await create(example("kopf-example-2", { field: "value" }));
  expect(plain.status).toBe(201);
  expect((await runner.get(KopfRunner.kopfExamples, "kopf-example-2", "default"))?.spec).toEqual({
    field: "value",
  });

  await runner.stop();
  expect(runner.exitCode).toBe(0);
  // On exit, only persistent handlers' webhooks remain (none here).
  const left = await runner.get(ConfigManager.configurationResource("validating"), "auto.kopf.dev");
  expect((left as any)?.webhooks ?? []).toEqual([]);
});
