/**
 * Example 17 through KopfRunner on the selected cluster: the emulator, which calls the
 * operator's webhooks on real create requests as a real API server does, or a real
 * kube-apiserver (the real tier) calling them over TLS. The managed configurations point at the
 * webhook server; a validating handler rejects objects with its message and code; the mutating
 * handler's change is visible in the stored object; warnings reach the client.
 */
import { ConfigManager } from "@kopf/admission";
import { WebhookAdmission } from "@kopf/emulator";
import { Clusters, KopfRunner, type Requests } from "@kopf/testing";
import { Layer } from "effect";
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

/** Objects are created at this path of the cluster. */
const COLLECTION = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

/** Creates an object as kubectl does: one request, whatever the status (`runner.request`). */
const create = (runner: KopfRunner.KopfRunner, body: unknown, options: { readonly dryRun?: boolean } = {}) =>
  runner.request("POST", options.dryRun === true ? `${COLLECTION}?dryRun=All` : COLLECTION, body);

type Created = Requests.Answer;

/**
 * Repeats a dry-run probe until the webhooks answer it as configured: a real API server calls
 * newly configured webhooks a moment after the configuration is written (its informer's cache);
 * the emulator reads the configurations on every request, so there the first probe passes.
 */
const untilCalled = async (probe: () => Promise<Created>, passes: (answer: Created) => boolean) => {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const answer = await probe();
    if (passes(answer)) return;
    if (performance.now() > deadline)
      throw new Error(`The webhooks were not called: ${JSON.stringify(answer)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
};

it("validates and mutates real requests through the operator's webhooks", async () => {
  await using cluster = await Clusters.build(
    Clusters.selected({ emulator: () => Clusters.inProcess().pipe(Layer.provide(WebhookAdmission.layer)) }),
  );
  // The startup handler keeps a server configured beforehand: here, one on the loopback.
  const runner = await KopfRunner.start({
    registry: kopf.getDefaultRegistry(),
    cluster,
    namespaces: ["default"],
    settings: { admission: { server: kopf.WebhookServer({ addr: "127.0.0.1" }) } },
  });
  await runner.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }, CRD]);

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
  const mwc = await runner.waitFor(
    ConfigManager.configurationResource("mutating"),
    "auto.kopf.dev",
    undefined,
    (b: any) => (b?.webhooks ?? []).length === 1,
  );
  expect((mwc as any).webhooks.map((w: any) => w.name)).toEqual(["mutate1.auto.kopf.dev"]);
  await untilCalled(
    () => create(runner, example("kopf-example-probe", { field: "not-allowed" }), { dryRun: true }),
    (answer) => answer.status === 555,
  );
  await untilCalled(
    () =>
      create(runner, example("kopf-example-probe", { field: "value" }, { somelabel: "somevalue" }), {
        dryRun: true,
      }),
    (answer) => answer.status === 201 && answer.body.spec?.injected === 123,
  );

  // Validating handlers reject objects with their messages and codes.
  const wrong = await create(runner, example("kopf-example-wrong", { field: "wrong" }));
  expect(wrong.status).toBe(500);
  expect(wrong.body.message).toBe(
    'admission webhook "validate1.auto.kopf.dev" denied the request: Meh! I don\'t like it. Change the field.',
  );
  const lazy = await create(runner, example("kopf-example-lazy", { field: "not-allowed" }));
  expect(lazy.status).toBe(555);
  expect(lazy.body.message).toBe(
    'admission webhook "validate2.spec.field.auto.kopf.dev" denied the request: I\'m too lazy anyway. Go away!',
  );
  expect(await runner.get(KopfRunner.kopfExamples, "kopf-example-wrong", "default")).toBeUndefined();
  expect(await runner.get(KopfRunner.kopfExamples, "kopf-example-lazy", "default")).toBeUndefined();

  // The mutating handler's change is stored (for labelled objects only); warnings reach the client.
  const labelled = await create(
    runner,
    example("kopf-example-1", { field: "value" }, { somelabel: "somevalue" }),
  );
  expect(labelled.status).toBe(201);
  expect(labelled.warning).toBe('299 - "SSL peer is not identified."');
  expect((await runner.get(KopfRunner.kopfExamples, "kopf-example-1", "default"))?.spec).toEqual({
    field: "value",
    injected: 123,
  });
  const plain = await create(runner, example("kopf-example-2", { field: "value" }));
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
