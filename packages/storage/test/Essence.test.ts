// Covers the essence (docs/behaviour/causes.md#essence, vectors docs/behaviour/causes.md#essence, ported from Kopf's
// tests/persistence/test_essences.py) through every diff-base storage (annotations, status and
// multi), plus properties: the essence never holds Kopf's or the storage's own annotations, and
// building never mutates the body.
import { describe, expect, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import * as AnnotationKeys from "../src/AnnotationKeys.ts";
import * as AnnotationsDiffBaseStorage from "../src/AnnotationsDiffBaseStorage.ts";
import type { DiffBaseStorage } from "../src/DiffBaseStorage.ts";
import * as Essence from "../src/Essence.ts";
import * as MultiDiffBaseStorage from "../src/MultiDiffBaseStorage.ts";
import * as StatusDiffBaseStorage from "../src/StatusDiffBaseStorage.ts";

const STORAGES: ReadonlyArray<readonly [string, () => DiffBaseStorage]> = [
  ["annotations", () => AnnotationsDiffBaseStorage.makeDefault()],
  ["status", () => StatusDiffBaseStorage.make()],
  [
    "multi",
    () => MultiDiffBaseStorage.make([AnnotationsDiffBaseStorage.makeDefault(), StatusDiffBaseStorage.make()]),
  ],
];

const SYSTEM_FIELDS = [
  "uid",
  "name",
  "namespace",
  "selfLink",
  "generation",
  "finalizers",
  "resourceVersion",
  "creationTimestamp",
  "deletionTimestamp",
  "any-unexpected-field",
];
const NOT_KOPF_PREFIXES = [
  "kopf-domain.tld",
  "kopf.domain.tld",
  "domain.tld.kopf",
  "domain.tld-kopf",
  "domain.kopf.tld",
  "domain.kopf-tld",
  "domain-kopf.tld",
  "domain-kopf-tld",
];
const KOPF_PREFIXES = ["kopf.zalando.org", "sub.kopf.zalando.org", "sub.sub.kopf.zalando.org"];
const KUBECTL = "kubectl.kubernetes.io/last-applied-configuration";
const STATUS = { status: { kopf: { progress: "x", anything: "y" }, other: "z" } };

type Row = readonly [name: string, body: object, extra: ReadonlyArray<string>, essence: object];
const ROWS: ReadonlyArray<Row> = [
  ["apiVersion and kind", { apiVersion: "group/version", kind: "Kind" }, [], {}],
  ...SYSTEM_FIELDS.map((f): Row => [`metadata.${f}`, { metadata: { [f]: "x" } }, [], {}]),
  ...SYSTEM_FIELDS.map(
    (f): Row => [
      `metadata.${f} with an extra field`,
      { metadata: { [f]: "x", other: "y" } },
      ["metadata.other"],
      { metadata: { other: "y" } },
    ],
  ),
  ["kubectl annotation", { metadata: { annotations: { [KUBECTL]: "x" } } }, [], {}],
  [
    "kubectl annotation with others",
    { metadata: { annotations: { [KUBECTL]: "x", other: "y" } } },
    [],
    { metadata: { annotations: { other: "y" } } },
  ],
  ...NOT_KOPF_PREFIXES.map((p): Row => {
    const body = { metadata: { annotations: { [`${p}/to-be-removed`]: "x" } } };
    return [`${p} annotations kept`, body, [], body];
  }),
  ...KOPF_PREFIXES.map(
    (p): Row => [
      `${p} annotations dropped`,
      { metadata: { annotations: { [`${p}/to-be-removed`]: "x", other: "y" } } },
      [],
      { metadata: { annotations: { other: "y" } } },
    ],
  ),
  [
    "marked prefix dropped",
    {
      metadata: {
        annotations: {
          "domain.tld/to-be-removed": "x",
          "domain.tld/kopf-managed": "yes",
          other: "y",
        },
      },
    },
    [],
    { metadata: { annotations: { other: "y" } } },
  ],
  ["status dropped", STATUS, [], {}],
  ["status with an extra field", STATUS, ["status.other"], { status: { other: "z" } }],
  ["an empty status kept as an extra field", { status: {}, spec: { a: 1 } }, ["status"], { spec: { a: 1 } }],
  ["a missing extra field", { spec: { a: 1 } }, ["status.phase", "spec.b.c"], { spec: { a: 1 } }],
  [
    "labels and other top-level fields kept",
    { kind: "ConfigMap", metadata: { labels: { a: "b" }, uid: "u" }, data: { k: "v" } },
    [],
    { data: { k: "v" }, metadata: { labels: { a: "b" } } },
  ],
  [
    "empty labels dropped",
    { metadata: { labels: {}, annotations: {} }, spec: { x: 1 } },
    [],
    { spec: { x: 1 } },
  ],
];

describe.each(STORAGES)("Essence via the %s diff-base storage", (_, makeStorage) => {
  it.each(ROWS)("%s", (_, body, extraFields, expected) => {
    expect(makeStorage().build({ body: body as RawBody, extraFields })).toEqual(expected);
  });

  it("is a deep copy of the body", () => {
    const body = { spec: { depth: { field: "x" } } };
    const essence = makeStorage().build({ body });
    body.spec.depth.field = "y";
    expect(essence).toEqual({ spec: { depth: { field: "x" } } });
  });
});

describe("ignored fields", () => {
  const body = { a: { b: { c: "d" }, e: { f: "g" } }, h: { i: "j" } };
  const ignoredFields = ["a.b", "a.e.f.g", "h", "k.l.m"];
  it.each([
    ["annotations", () => Result.getOrThrow(AnnotationsDiffBaseStorage.make({ ignoredFields }))],
    ["status", () => StatusDiffBaseStorage.make({ ignoredFields })],
  ] as const)("are removed, non-object paths skipped (%s)", (_, makeStorage) => {
    expect(makeStorage().build({ body })).toEqual({ a: { e: { f: "g" } } });
  });

  it("also drop parents that were already empty along the path, as Kopf", () => {
    expect(Essence.build({ spec: {}, data: 1 } as RawBody, { ignoredFields: ["spec.x"] })).toEqual({
      data: 1,
    });
  });
});

describe("storage-specific removal", () => {
  it("the annotations storage drops its own keys even under an unmarked prefix", () => {
    const storage = Result.getOrThrow(AnnotationsDiffBaseStorage.make({ prefix: "my.example.com" }));
    const body = {
      metadata: { annotations: { "my.example.com/last-handled-configuration": "{}", keep: "1" } },
    };
    expect(storage.build({ body })).toEqual({ metadata: { annotations: { keep: "1" } } });
  });

  it("the status storage drops its own field even when asked to keep the status", () => {
    const storage = StatusDiffBaseStorage.make();
    const body = { status: { kopf: { "last-handled-configuration": "{}" }, phase: "Ready" } };
    expect(storage.build({ body, extraFields: ["status"] })).toEqual({ status: { phase: "Ready" } });
  });
});

const annotationKey = fc.oneof(
  fc.constantFrom(
    "kopf.zalando.org/create_fn",
    "sub.kopf.zalando.org/x",
    "kopf.zalando.org/last-handled-configuration",
    "kopf.zalando.org/touch-dummy",
    KUBECTL,
    "mine.example.com/kopf-managed",
    "mine.example.com/state",
    "app.kubernetes.io/name",
    "plain",
  ),
  fc.string({ maxLength: 12 }),
);
const bodyArb = fc.record({
  apiVersion: fc.constant("v1"),
  kind: fc.constantFrom("ConfigMap", "ReplicaSet"),
  metadata: fc.record({
    name: fc.string(),
    annotations: fc.dictionary(annotationKey, fc.string(), { maxKeys: 8 }),
    labels: fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 3 }),
  }),
  spec: fc.jsonValue(),
  status: fc.jsonValue(),
});

describe("essence properties", () => {
  it("never contains Kopf-marked annotations, kubectl's, or the storage's own keys", () => {
    const storages = STORAGES.map(([, make]) => make());
    fc.assert(
      fc.property(bodyArb, (body) => {
        for (const storage of storages) {
          const essence = storage.build({ body: body as RawBody }) as {
            metadata?: { annotations?: Record<string, string> };
          };
          const keys = Object.keys(essence.metadata?.annotations ?? {});
          for (const key of keys) {
            expect(key.startsWith("kopf.zalando.org/")).toBe(false);
            expect(key.startsWith("sub.kopf.zalando.org/")).toBe(false);
            expect(key).not.toBe(KUBECTL);
            if (Object.hasOwn(body.metadata.annotations, "mine.example.com/kopf-managed")) {
              expect(key.startsWith("mine.example.com/")).toBe(false);
            }
          }
          expect(essence).not.toHaveProperty("apiVersion");
          expect(essence).not.toHaveProperty("kind");
          expect((essence as { status?: unknown }).status).toBeUndefined();
        }
      }),
    );
  });

  it("never contains the own keys of a storage with an unmarked custom prefix", () => {
    const keyArb = fc.oneof(
      fc.constant("last-handled-configuration"),
      fc.string({ minLength: 1, maxLength: 90 }),
    );
    fc.assert(
      fc.property(
        keyArb,
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
        (key, others) => {
          const storage = Result.getOrThrow(
            AnnotationsDiffBaseStorage.make({ prefix: "mine.example.com", key }),
          );
          const own = AnnotationKeys.makeKeys({ prefix: "mine.example.com", v1: true }, key);
          const annotations = { ...others, ...Object.fromEntries(own.map((k) => [k, "{}"])) };
          const essence = storage.build({ body: { metadata: { annotations } } }) as {
            metadata?: { annotations?: Record<string, string> };
          };
          for (const k of own) expect(essence.metadata?.annotations ?? {}).not.toHaveProperty([k]);
        },
      ),
    );
  });

  it("never mutates the body and is stable (building twice gives equal essences)", () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const before = structuredClone(body);
        const storage = AnnotationsDiffBaseStorage.makeDefault();
        const first = storage.build({ body: body as RawBody, extraFields: ["status"] });
        expect(body).toEqual(before);
        expect(storage.build({ body: body as RawBody, extraFields: ["status"] })).toEqual(first);
      }),
    );
  });
});
