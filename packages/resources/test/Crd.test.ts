import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";
import { Crd, CustomResource } from "../src/index.ts";
import { Example } from "./fixtures.ts";

describe("Crd.fromResource", () => {
  const crd = Result.getOrThrow(Crd.fromResource(Example));

  it("names, scope and versions with the storage one marked", () => {
    expect(crd.metadata.name).toBe("typedexamples.kopf.dev");
    expect(crd.spec.names).toEqual({
      kind: "TypedExample",
      plural: "typedexamples",
      singular: "typedexample",
      listKind: "TypedExampleList",
      shortNames: ["tex"],
    });
    expect(crd.spec.scope).toBe("Namespaced");
    expect(
      crd.spec.versions.map((v) => [(v as { name: string }).name, (v as { storage: boolean }).storage]),
    ).toEqual([
      ["v1", false],
      ["v2", true],
    ]);
  });

  it("a version: spec required, status subresource, printer columns", () => {
    expect(crd.spec.versions[1]).toMatchObject({
      name: "v2",
      served: true,
      subresources: { status: {} },
      additionalPrinterColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }],
      schema: {
        openAPIV3Schema: {
          type: "object",
          required: ["spec"],
          properties: {
            metadata: { type: "object" },
            spec: {
              type: "object",
              required: ["replicas"],
              properties: {
                replicas: { type: "integer", minimum: 1, maximum: 10 },
                mode: { type: "string", enum: ["fast", "safe"], default: "safe" },
                name: { type: "string", pattern: "^[a-z]+$", maxLength: 8 },
              },
            },
            status: { type: "object", properties: { phase: { type: "string" } } },
          },
        },
      },
    });
  });

  it("a webhook conversion section, at the configured client", () => {
    expect(crd.spec.conversion).toEqual({
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: { url: "https://localhost:9443/convert/kopf.dev/typedexamples" },
      },
    });
    const custom = Result.getOrThrow(
      Crd.fromResource(Example, { conversionClientConfig: { url: "https://10.0.0.1/c", caBundle: "QUJD" } }),
    );
    expect(custom.spec.conversion).toMatchObject({
      webhook: { clientConfig: { url: "https://10.0.0.1/c", caBundle: "QUJD" } },
    });
  });

  it("one version: no conversion; scale subresource", () => {
    const one = Result.getOrThrow(
      CustomResource.define({
        group: "kopf.dev",
        kind: "Scaled",
        plural: "scaleds",
        scope: "Cluster",
        versions: {
          v1: {
            spec: Schema.Struct({ replicas: Schema.Int }),
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
          },
        },
        storage: "v1",
      }),
    );
    const c = Result.getOrThrow(Crd.fromResource(one));
    expect(c.spec.conversion).toEqual({ strategy: "None" });
    expect(c.spec.scope).toBe("Cluster");
    expect(c.spec.versions[0]).toMatchObject({
      subresources: { scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" } },
    });
  });

  it("a field without an OpenAPI form fails the CRD, naming the field", () => {
    const bad = Result.getOrThrow(
      CustomResource.define({
        group: "kopf.dev",
        kind: "Bad",
        plural: "bads",
        versions: { v1: { spec: Schema.Struct({ when: Schema.Date }) } },
        storage: "v1",
      }),
    );
    const result = Crd.fromResource(bad);
    expect(Result.isFailure(result) && result.failure.path).toBe("spec.when");
  });
});

describe("CustomResource.define", () => {
  const spec = Schema.Struct({});
  it.each([
    ["no versions", { versions: {}, storage: "v1" }, "needs at least one version"],
    [
      "an unknown storage version",
      { versions: { v1: { spec } }, storage: "v2" },
      "the storage version v2 is not among the versions (v1)",
    ],
    [
      "an unserved storage version",
      { versions: { v1: { spec, served: false } }, storage: "v1" },
      "must be served",
    ],
    [
      "a conversion missing a version",
      {
        versions: { v1: { spec }, v2: { spec }, v3: { spec } },
        storage: "v1",
        conversion: { v2: { toStorage: (c: never) => c, fromStorage: (c: never) => c } },
      },
      "no conversion to and from v1 for v3",
    ],
  ])("rejects %s", (_, parts, message) => {
    const result = CustomResource.define({
      group: "g.dev",
      kind: "K",
      plural: "ks",
      ...(parts as object),
    } as never);
    expect(Result.isFailure(result) && result.failure.message).toContain(message);
  });
});
