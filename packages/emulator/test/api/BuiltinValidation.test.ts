/** Type-specific validation of built-in kinds: the 422 messages a real apiserver gives for common mistakes. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { run, send } from "./Harness.ts";

const webhook = (hook: Record<string, unknown>) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "w" },
  webhooks: [hook],
});
const goodHook = {
  name: "check.kopf.dev.example",
  clientConfig: { url: "https://127.0.0.1:9443/x" },
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
};

describe("finalizer names of core kinds", () => {
  // kube-apiserver v1.34.4 on a merge patch adding the finalizer "a" to a ConfigMap: the message
  // names it once, the causes twice (ValidateConfigMapUpdate checks the metadata update, then the
  // whole ConfigMap again).
  it("an update reports an unqualified finalizer of a ConfigMap twice in the causes, once in the message", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "one" }, data: {} });
        return yield* send(
          "PATCH",
          "/api/v1/namespaces/default/configmaps/one",
          { metadata: { finalizers: ["a"] } },
          { "content-type": "application/merge-patch+json" },
        );
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "one" is invalid: metadata.finalizers[0]: Invalid value: "a": name is neither a standard finalizer name nor is it fully qualified',
    );
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual([
      "metadata.finalizers[0]",
      "metadata.finalizers[0]",
    ]);
  });

  it("custom resources and webhook configurations accept unqualified finalizers", async () => {
    const r = await run(
      send("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
        ...webhook(goodHook),
        metadata: { name: "w", finalizers: ["a"] },
      }),
    );
    expect(r.status).toBe(201);
  });
});

describe("built-in validation", () => {
  it.each([
    // As kube-apiserver v1.34.4 answered (a mutating webhook's patch had left the finalizer "a").
    [
      "/api/v1/namespaces/default/configmaps",
      { metadata: { name: "bp", finalizers: ["a", "kopf.dev/ok", "orphan"] }, data: {} },
      'ConfigMap "bp" is invalid: metadata.finalizers[0]: Invalid value: "a": name is neither a standard finalizer name nor is it fully qualified',
    ],
    [
      "/api/v1/namespaces/default/configmaps",
      { metadata: { name: "c" }, data: { "bad key": "v" } },
      "ConfigMap \"c\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ],
    [
      "/api/v1/namespaces/default/pods",
      { metadata: { name: "p" }, spec: {} },
      'Pod "p" is invalid: spec.containers: Required value',
    ],
    [
      "/api/v1/namespaces/default/pods",
      { metadata: { name: "p" }, spec: { containers: [{ name: "c" }] } },
      'Pod "p" is invalid: spec.containers[0].image: Required value',
    ],
    [
      "/apis/apps/v1/namespaces/default/deployments",
      { metadata: { name: "d" }, spec: {} },
      'Deployment.apps "d" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.template.spec.containers: Required value]',
    ],
    [
      "/apis/apps/v1/namespaces/default/deployments",
      {
        metadata: { name: "d" },
        spec: {
          selector: { matchLabels: { app: "a" } },
          template: { metadata: { labels: { app: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } },
        },
      },
      'Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
    ],
    [
      "/api/v1/namespaces/default/services",
      { metadata: { name: "s" }, spec: {} },
      'Service "s" is invalid: spec.ports: Required value',
    ],
    [
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      webhook({ ...goodHook, sideEffects: undefined }),
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
    ],
    [
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      webhook({ ...goodHook, name: "short.name" }),
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
    ],
  ])("POST %s %j", async (url, body, message) => {
    const r = await run(send("POST", url, body));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(message);
  });

  it("accepts a valid webhook configuration and defaults it", async () => {
    const r = await run(
      send(
        "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        webhook(goodHook),
      ),
    );
    expect(r.status).toBe(201);
    expect(r.body.webhooks[0]).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      timeoutSeconds: 10,
      namespaceSelector: {},
      objectSelector: {},
    });
  });

  it("keeps immutable configmaps immutable", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces/default/configmaps", {
          metadata: { name: "c" },
          immutable: true,
          data: { a: "1" },
        });
        return yield* send(
          "PATCH",
          "/api/v1/namespaces/default/configmaps/c",
          { data: { a: "2" } },
          { "content-type": "application/merge-patch+json" },
        );
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
  });
});
