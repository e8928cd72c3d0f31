// Body: accessors that read sections of a raw body without creating keys.
import { describe, expect, it } from "vitest";
import * as Body from "../src/Body.ts";

const full: Body.RawBody = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: "kopf-example-1",
    namespace: "default",
    uid: "uid-1",
    resourceVersion: "123",
    labels: { app: "web" },
    annotations: { "kopf.zalando.org/x": "{}" },
    finalizers: ["kopf.zalando.org/KopfFinalizerMarker"],
    creationTimestamp: "2020-01-01T00:00:00Z",
    deletionTimestamp: "2020-01-02T00:00:00Z",
  },
  spec: { field: "value" },
  status: { phase: "Ready" },
  data: { key: "value" },
};

describe("accessors on a full body", () => {
  it("read every section", () => {
    expect(Body.meta(full).name).toBe("kopf-example-1");
    expect(Body.spec(full)).toEqual({ field: "value" });
    expect(Body.status(full)).toEqual({ phase: "Ready" });
    expect(Body.labels(full)).toEqual({ app: "web" });
    expect(Body.annotations(full)).toEqual({ "kopf.zalando.org/x": "{}" });
    expect(Body.uid(full)).toBe("uid-1");
    expect(Body.name(full)).toBe("kopf-example-1");
    expect(Body.namespace(full)).toBe("default");
    expect(Body.resourceVersion(full)).toBe("123");
    expect(Body.creationTimestamp(full)).toBe("2020-01-01T00:00:00Z");
    expect(Body.deletionTimestamp(full)).toBe("2020-01-02T00:00:00Z");
    expect(Body.finalizers(full)).toEqual(["kopf.zalando.org/KopfFinalizerMarker"]);
  });

  it("return the live sections, not copies", () => {
    expect(Body.spec(full)).toBe(full.spec);
    expect(Body.meta(full)).toBe(full.metadata);
  });
});

describe.each<[string, Body.RawBody]>([
  ["an empty body", {}],
  ["a body with empty metadata", { metadata: {} }],
  ["a body with null sections", { metadata: null, spec: null, status: null } as unknown as Body.RawBody],
  [
    "a body with null fields",
    {
      metadata: {
        uid: null,
        name: null,
        labels: null,
        annotations: null,
        deletionTimestamp: null,
        finalizers: null,
      },
    } as unknown as Body.RawBody,
  ],
])("accessors on %s", (_, body) => {
  it("return frozen empty objects for sections", () => {
    for (const section of [Body.spec(body), Body.status(body), Body.labels(body), Body.annotations(body)]) {
      expect(section).toEqual({});
      expect(Object.isFrozen(section)).toBe(true);
    }
    expect(Body.finalizers(body)).toEqual([]);
  });

  it("return undefined for scalar fields", () => {
    expect(Body.uid(body)).toBeUndefined();
    expect(Body.name(body)).toBeUndefined();
    expect(Body.namespace(body)).toBeUndefined();
    expect(Body.resourceVersion(body)).toBeUndefined();
    expect(Body.deletionTimestamp(body)).toBeUndefined();
  });

  it("never create keys", () => {
    const before = structuredClone(body);
    Body.labels(body);
    Body.annotations(body);
    Body.status(body);
    expect(body).toEqual(before);
  });
});

describe("meta", () => {
  it.each<[string, Body.RawBody]>([
    ["absent", {}],
    ["null", { metadata: null } as unknown as Body.RawBody],
    ["not an object", { metadata: "text" } as unknown as Body.RawBody],
  ])("is a frozen {} when metadata is %s", (_, body) => {
    expect(Body.meta(body)).toEqual({});
    expect(Object.isFrozen(Body.meta(body))).toBe(true);
  });
});
