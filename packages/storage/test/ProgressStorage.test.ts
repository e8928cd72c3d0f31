// Covers the progress storages (docs/behaviour/progress.md#storages, vectors docs/behaviour/progress.md#storages and the storage part of docs/behaviour/progress.md#annotation-keys, ported
// from Kopf's tests/persistence/test_storing_of_progress.py and test_annotations_hashing.py):
// construction and defaults, fetch/store/purge/touch/clear for the annotations, status,
// no-write status, multi and smart storages, hashed keys, the kopf-managed marker, and
// store-then-fetch round trips as a property.
import { describe, expect, it } from "@effect/vitest";
import type { RawBody } from "@kopf/structs";
import * as Result from "effect/Result";
import * as fc from "fast-check";
import * as AnnotationsProgressStorage from "../src/AnnotationsProgressStorage.ts";
import * as MultiProgressStorage from "../src/MultiProgressStorage.ts";
import * as ProgressRecord from "../src/ProgressRecord.ts";
import type { ProgressStorage } from "../src/ProgressStorage.ts";
import * as SmartProgressStorage from "../src/SmartProgressStorage.ts";
import * as StatusProgressStorage from "../src/StatusProgressStorage.ts";

type Patch = { [key: string]: unknown };
const P = "my-operator.example.com";

const CONTENT_1: ProgressRecord.ProgressRecord = {
  started: "2020-01-01T00:00:00",
  stopped: "2020-12-31T23:59:59",
  delayed: "3000-01-01T00:00:00",
  retries: 123,
  success: false,
  failure: false,
  message: null,
  subrefs: null,
};
const CONTENT_2: ProgressRecord.ProgressRecord = {
  started: "2021-01-01T00:00:00",
  stopped: "2021-12-31T23:59:59",
  delayed: "3001-01-01T00:00:00",
  retries: 456,
  success: false,
  failure: false,
  message: "Some error.",
  subrefs: ["sub1", "sub2"],
};
// As Python's json.dumps(record, separators=(",", ":")) writes them (verbose: nulls kept).
const JSON_1 =
  '{"started":"2020-01-01T00:00:00","stopped":"2020-12-31T23:59:59","delayed":"3000-01-01T00:00:00","retries":123,"success":false,"failure":false,"message":null,"subrefs":null}';
const JSON_2 =
  '{"started":"2021-01-01T00:00:00","stopped":"2021-12-31T23:59:59","delayed":"3001-01-01T00:00:00","retries":456,"success":false,"failure":false,"message":"Some error.","subrefs":["sub1","sub2"]}';

const ok = <A, E>(result: Result.Result<A, E>): A => Result.getOrThrow(result);
const annotations = (options: AnnotationsProgressStorage.Options = {}) =>
  ok(AnnotationsProgressStorage.make(options));
const smart = (options: SmartProgressStorage.Options = {}) => ok(SmartProgressStorage.make(options));
const asBody = (value: object): RawBody => value as RawBody;
const annotationsOf = (patch: Patch) =>
  (patch.metadata as { annotations: Record<string, unknown> }).annotations;

const ANNOTATION_STORAGES: ReadonlyArray<
  readonly [string, (o: AnnotationsProgressStorage.Options) => ProgressStorage]
> = [
  ["annotations", annotations],
  ["smart", smart],
];

describe("construction", () => {
  it("has Kopf's defaults", () => {
    const status = StatusProgressStorage.make();
    expect(status.field).toEqual(["status", "kopf", "progress"]);
    expect(status.touchField).toEqual(["status", "kopf", "dummy"]);
    const storage = AnnotationsProgressStorage.makeDefault();
    expect([storage.prefix, storage.verbose, storage.touchKey, storage.v1]).toEqual([
      "kopf.zalando.org",
      false,
      "touch-dummy",
      true,
    ]);
    expect(annotations()).toMatchObject({ prefix: "kopf.zalando.org", warnings: [] });
  });

  it.each([
    [{ name: "my-operator" }, ["status", "my-operator", "progress"], ["status", "my-operator", "dummy"]],
    [
      { field: "status.my-operator", touchField: "status.my-dummy" },
      ["status", "my-operator"],
      ["status", "my-dummy"],
    ],
  ])("formats status fields from %j", (options, field, touchField) => {
    expect(StatusProgressStorage.make(options)).toMatchObject({ field, touchField });
    const [first, second] = smart(options).storages as [
      AnnotationsProgressStorage.AnnotationsProgressStorage,
      StatusProgressStorage.StatusProgressStorage,
    ];
    expect(first.prefix).toBe("kopf.zalando.org");
    expect(second).toMatchObject({ _tag: "NoWriteStatusProgressStorage", field, touchField });
  });

  it("passes the prefix of the smart storage to its annotations part", () => {
    const [first, second] = smart({ prefix: "my-operator.my-company.com" }).storages as [
      AnnotationsProgressStorage.AnnotationsProgressStorage,
      StatusProgressStorage.StatusProgressStorage,
    ];
    expect(first.prefix).toBe("my-operator.my-company.com");
    expect(second.field).toEqual(["status", "kopf", "progress"]);
  });

  it.each([
    ["annotations", () => AnnotationsProgressStorage.make({ prefix: "" })],
    ["smart", () => SmartProgressStorage.make({ prefix: "" })],
  ])("rejects an empty prefix (%s)", (_, make) => {
    const result: Result.Result<unknown, { readonly message: string }> = make();
    expect(Result.isFailure(result) && result.failure.message).toBe("Annotations storages must be prefixed.");
  });

  it("warns about a prefix of 190 characters", () => {
    expect(annotations({ prefix: "x".repeat(190) }).warnings).toHaveLength(1);
    expect(smart({ prefix: "x".repeat(190) }).warnings).toHaveLength(1);
    expect(smart({ prefix: "x".repeat(189) }).warnings).toHaveLength(0);
  });
});

const ALL: ReadonlyArray<readonly [string, () => ProgressStorage]> = [
  ["annotations", () => annotations()],
  ["status", () => StatusProgressStorage.make()],
  ["smart", () => smart()],
  ["no-write status", () => StatusProgressStorage.makeNoWrite()],
];

describe.each(ALL)("common behaviour: %s", (_, make) => {
  it("fetches nothing from an empty body", () => {
    expect(ok(make().fetch({ key: "id1", body: {} }))).toBeUndefined();
  });

  it("purges nothing from an empty body", () => {
    const patch: Patch = {};
    make().purge({ key: "id1", body: {}, patch });
    expect(patch).toEqual({});
  });
});

describe.each(ANNOTATION_STORAGES)("annotation storing: %s", (_, make) => {
  const verbose = () => make({ prefix: P, verbose: true });

  it("fetches a record", () => {
    const body = { metadata: { annotations: { [`${P}/id1`]: JSON_1 } } };
    expect(ok(verbose().fetch({ key: "id1", body }))).toEqual(CONTENT_1);
  });

  it("stores, appends and overwrites records as compact JSON", () => {
    const patch: Patch = {};
    const storage = verbose();
    storage.store({ key: "id1", record: CONTENT_1, body: {}, patch });
    expect(annotationsOf(patch)[`${P}/id1`]).toBe(JSON_1);
    storage.store({ key: "id2", record: CONTENT_2, body: {}, patch });
    expect(annotationsOf(patch)).toMatchObject({ [`${P}/id1`]: JSON_1, [`${P}/id2`]: JSON_2 });
    storage.store({ key: "id1", record: CONTENT_2, body: {}, patch });
    expect(annotationsOf(patch)[`${P}/id1`]).toBe(JSON_2);
  });

  it("drops null fields unless verbose (an all-null record is {})", () => {
    const patch: Patch = {};
    const record = Object.fromEntries(ProgressRecord.FIELDS.map((f) => [f, null]));
    make({ prefix: P }).store({ key: "id1", record, body: {}, patch });
    expect(annotationsOf(patch)[`${P}/id1`]).toBe("{}");
  });

  it("writes the kopf-managed marker for a non-kopf prefix, once", () => {
    const patch: Patch = {};
    make({ prefix: P }).store({ key: "id1", record: {}, body: {}, patch });
    expect(annotationsOf(patch)[`${P}/kopf-managed`]).toBe("yes");
    const marked = { metadata: { annotations: { [`${P}/kopf-managed`]: "yes" } } };
    const again: Patch = {};
    make({ prefix: P }).store({ key: "id1", record: {}, body: marked, patch: again });
    expect(annotationsOf(again)).not.toHaveProperty(`${P}/kopf-managed`);
  });

  it("writes no marker for kopf.* prefixes", () => {
    const patch: Patch = {};
    make({}).store({ key: "id1", record: {}, body: {}, patch });
    expect(Object.keys(annotationsOf(patch))).toEqual(["kopf.zalando.org/id1"]);
  });

  it("purges by nulling the annotation", () => {
    const patch: Patch = {};
    const body = { metadata: { annotations: { [`${P}/id1`]: JSON_1 } } };
    verbose().purge({ key: "id1", body, patch });
    expect(patch).toEqual({ metadata: { annotations: { [`${P}/id1`]: null } } });
  });

  it.each([
    ["without data", {}],
    ["with data", { metadata: { annotations: { [`${P}/my-dummy`]: "something" } } }],
  ])("touches with a payload (%s)", (_, body) => {
    const patch: Patch = {};
    make({ prefix: P, touchKey: "my-dummy" }).touch({ body, patch, value: "hello" });
    expect(annotationsOf(patch)[`${P}/my-dummy`]).toBe("hello");
  });

  it("touches with null: nothing when absent, null when present", () => {
    const storage = make({ prefix: P, touchKey: "my-dummy" });
    const absent: Patch = {};
    storage.touch({ body: {}, patch: absent, value: null });
    expect(absent).toEqual({});
    const present: Patch = {};
    const body = { metadata: { annotations: { [`${P}/my-dummy`]: "something" } } };
    storage.touch({ body, patch: present, value: null });
    // Kopf also brands the prefix whenever it touches.
    expect(present).toEqual({
      metadata: { annotations: { [`${P}/my-dummy`]: null, [`${P}/kopf-managed`]: "yes" } },
    });
  });

  it("uses the default touch key kopf.zalando.org/touch-dummy", () => {
    const patch: Patch = {};
    make({}).touch({ body: {}, patch, value: "x" });
    expect(patch).toEqual({ metadata: { annotations: { "kopf.zalando.org/touch-dummy": "x" } } });
  });

  it("clears its own annotations (and emptied stanzas) from an essence", () => {
    const essence = {
      spec: { a: 1 },
      metadata: { annotations: { [`${P}/id1`]: "{}", [`${P}x/id1`]: "kept" } },
    };
    expect(make({ prefix: P }).clear({ essence })).toEqual({
      spec: { a: 1 },
      metadata: { annotations: { [`${P}x/id1`]: "kept" } },
    });
    const only = { spec: {}, metadata: { annotations: { [`${P}/id1`]: "{}" } } };
    expect(make({ prefix: P }).clear({ essence: only })).toEqual({ spec: {} });
  });
});

// docs/behaviour/progress.md#annotation-keys: the storages use the hashed keys (prefix my-operator.example.com, default V1 on).
const HASHED: ReadonlyArray<readonly [string, string]> = [
  ["a_b.c-d/e", `${P}/a_b.c-d.e`],
  ["x".repeat(40), `${P}/${"x".repeat(32)}-tEokcg`],
  ["x".repeat(40), `${P}/${"x".repeat(40)}`],
  ["x".repeat(64), `${P}/${"x".repeat(56)}-SItAqA`],
  ["fn".repeat(323), `${P}/${"fn".repeat(16)}-Az-r.g`],
  ["fn".repeat(323), `${P}/${"fn".repeat(28)}-Az-r.g`],
];
const RECORD = {
  started: "2020-01-01T00:00:00",
  stopped: "2020-12-31T23:59:59",
  delayed: "3000-01-01T00:00:00",
  retries: 0,
  success: false,
  failure: false,
  message: null,
};

describe.each(ANNOTATION_STORAGES)("hashed keys: %s", (_, make) => {
  it.each(HASHED)("fetches %s from %s", (key, fullKey) => {
    const body = { metadata: { annotations: { [fullKey]: JSON.stringify(RECORD) } } };
    expect(ok(make({ prefix: P }).fetch({ key, body }))).toEqual(RECORD);
  });

  it.each(HASHED)("stores %s into %s", (key, fullKey) => {
    const patch: Patch = {};
    const body = { metadata: { annotations: { [fullKey]: "null" } } };
    make({ prefix: P }).store({ key, record: RECORD, body, patch });
    expect(annotationsOf(patch)).toHaveProperty([fullKey]);
  });

  it.each(HASHED)("purges %s from %s", (key, fullKey) => {
    const patch: Patch = {};
    const body = { metadata: { annotations: { [fullKey]: "null" } } };
    make({ prefix: P }).purge({ key, body, patch });
    expect(annotationsOf(patch)[fullKey]).toBeNull();
  });

  it.each(HASHED)("touches %s as %s", (key, fullKey) => {
    const patch: Patch = {};
    make({ prefix: P, touchKey: key }).touch({ body: {}, patch, value: "irrelevant" });
    expect(annotationsOf(patch)[fullKey]).toBe("irrelevant");
  });

  it("reads the V1 key when the V2 key holds null, and V2 first otherwise", () => {
    const key = "x".repeat(40);
    const v1 = `${P}/${"x".repeat(32)}-tEokcg`;
    const v2 = `${P}/${key}`;
    const storage = make({ prefix: P });
    const fallback = { metadata: { annotations: { [v2]: "null", [v1]: '{"retries":1}' } } };
    expect(ok(storage.fetch({ key, body: fallback }))).toEqual({ retries: 1 });
    const both = { metadata: { annotations: { [v2]: '{"retries":2}', [v1]: '{"retries":1}' } } };
    expect(ok(storage.fetch({ key, body: both }))).toEqual({ retries: 2 });
  });

  it("marks keys of ReplicaSets owned by Deployments", () => {
    const patch: Patch = {};
    const body = {
      kind: "ReplicaSet",
      metadata: { ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "d", uid: "u" }] },
    } as RawBody;
    make({ prefix: "kopf.dev" }).store({ key: "xyz", record: {}, body, patch });
    // kopf.* prefixes need no kopf-managed marker.
    expect(Object.keys(annotationsOf(patch))).toEqual(["kopf.dev/xyz-ofDRS"]);
  });
});

describe("decoding errors", () => {
  it.each([
    ["not JSON", "{oops", "InvalidJson"],
    ["not an object", "[1,2]", "NotAnObject"],
    ["a wrong field type", '{"retries":"many"}', "InvalidField"],
  ])("reports %s", (_, text, reason) => {
    const body = { metadata: { annotations: { "kopf.zalando.org/id1": text } } };
    const result = annotations().fetch({ key: "id1", body });
    expect(Result.isFailure(result) && result.failure.reason).toBe(reason);
    expect(Result.isFailure(result) && result.failure.key).toBe("kopf.zalando.org/id1");
  });
});

describe("status storing", () => {
  const field = "status.my-operator";

  it.each([
    ["status", () => StatusProgressStorage.make({ field })],
    ["smart", () => smart({ field })],
    ["no-write", () => StatusProgressStorage.makeNoWrite({ field })],
  ])("reads status.<field>.<id> (%s)", (_, make) => {
    const body = asBody({ status: { "my-operator": { id1: CONTENT_1, id2: CONTENT_2 } } });
    expect(ok(make().fetch({ key: "id1", body }))).toEqual(CONTENT_1);
  });

  it("stores, appends and overwrites nested records (nulls kept for Kubernetes to prune)", () => {
    const storage = StatusProgressStorage.make({ field });
    const patch: Patch = {};
    storage.store({ key: "id1", record: CONTENT_1, body: {}, patch });
    storage.store({ key: "id2", record: CONTENT_1, body: {}, patch });
    expect(patch).toEqual({ status: { "my-operator": { id1: CONTENT_1, id2: CONTENT_1 } } });
    storage.store({ key: "id1", record: CONTENT_2, body: {}, patch });
    expect((patch.status as Record<string, Record<string, unknown>>)["my-operator"]?.id1).toEqual(CONTENT_2);
  });

  it.each([
    ["status", () => StatusProgressStorage.make({ field })],
    ["smart", () => smart({ field })],
    ["no-write", () => StatusProgressStorage.makeNoWrite({ field })],
  ])("purges by nulling (%s)", (_, make) => {
    const patch: Patch = {};
    make().purge({ key: "id1", body: asBody({ status: { "my-operator": { id1: CONTENT_1 } } }), patch });
    expect(patch).toEqual({ status: { "my-operator": { id1: null } } });
  });

  it.each([
    ["smart", () => smart({ field, touchField: "status.my-dummy" })],
    ["no-write", () => StatusProgressStorage.makeNoWrite({ field, touchField: "status.my-dummy" })],
  ])("never writes or touches the status (%s)", (_, make) => {
    const patch: Patch = {};
    make().store({ key: "id1", record: CONTENT_1, body: {}, patch });
    make().touch({ body: {}, patch, value: "hello" });
    expect(patch).not.toHaveProperty("status");
  });

  it.each([
    ["without data", {}],
    ["with data", { status: { "my-dummy": "something" } }],
  ])("touches with a payload (%s)", (_, body) => {
    const patch: Patch = {};
    StatusProgressStorage.make({ field, touchField: "status.my-dummy" }).touch({
      body: body as RawBody,
      patch,
      value: "hello",
    });
    expect(patch).toEqual({ status: { "my-dummy": "hello" } });
  });

  it("touches with null: nothing when absent, null when present", () => {
    const storage = StatusProgressStorage.make({ touchField: "status.my-dummy" });
    const absent: Patch = {};
    storage.touch({ body: {}, patch: absent, value: null });
    expect(absent).toEqual({});
    const present: Patch = {};
    storage.touch({ body: { status: { "my-dummy": "something" } } as RawBody, patch: present, value: null });
    expect(present).toEqual({ status: { "my-dummy": null } });
  });

  it("clears its field from an essence", () => {
    const essence = { spec: { a: 1 }, status: { kopf: { progress: { id1: {} } } } };
    expect(StatusProgressStorage.make().clear({ essence })).toEqual({ spec: { a: 1 } });
  });
});

describe("multi storage", () => {
  it("reads from the first storage having the record, writes to all", () => {
    const storage = MultiProgressStorage.make([annotations(), StatusProgressStorage.make()]);
    const body = {
      metadata: { annotations: { "kopf.zalando.org/id1": '{"retries":1}' } },
      status: { kopf: { progress: { id1: { retries: 2 }, id2: { retries: 3 } } } },
    } as RawBody;
    expect(ok(storage.fetch({ key: "id1", body }))).toEqual({ retries: 1 });
    expect(ok(storage.fetch({ key: "id2", body }))).toEqual({ retries: 3 });
    const patch: Patch = {};
    storage.store({ key: "id3", record: { retries: 4 }, body, patch });
    expect(patch).toEqual({
      metadata: { annotations: { "kopf.zalando.org/id3": '{"retries":4}' } },
      status: { kopf: { progress: { id3: ProgressRecord.toJson({ retries: 4 }, true) } } },
    });
  });

  it("purges from all and clears through all", () => {
    const storage = smart();
    const body = {
      metadata: { annotations: { "kopf.zalando.org/id1": "{}" } },
      status: { kopf: { progress: { id1: {} } } },
    } as RawBody;
    const patch: Patch = {};
    storage.purge({ key: "id1", body, patch });
    expect(patch).toEqual({
      metadata: { annotations: { "kopf.zalando.org/id1": null } },
      status: { kopf: { progress: { id1: null } } },
    });
    expect(storage.clear({ essence: { ...body, spec: { x: 1 } } as never })).toEqual({ spec: { x: 1 } });
  });
});

const recordArb: fc.Arbitrary<ProgressRecord.ProgressRecord> = fc.record(
  {
    started: fc.option(fc.constant("2020-12-31T23:59:59.123456+00:00"), { nil: null }),
    stopped: fc.option(fc.constant("2021-01-01T00:00:00.000000+00:00"), { nil: null }),
    delayed: fc.option(fc.constant("2021-01-01T00:00:01.500000+00:00"), { nil: null }),
    purpose: fc.option(fc.constantFrom("create", "update", "delete", "resume"), { nil: null }),
    retries: fc.option(fc.nat(), { nil: null }),
    success: fc.option(fc.boolean(), { nil: null }),
    failure: fc.option(fc.boolean(), { nil: null }),
    message: fc.option(fc.string({ unit: "binary" }), { nil: null }),
    subrefs: fc.option(fc.array(fc.string({ unit: "binary" }), { maxLength: 3 }), { nil: null }),
  },
  { requiredKeys: [] },
);

describe("round trips (property)", () => {
  it.each(["__proto__", "constructor", "toString"])("keeps a record under the key %s", (key) => {
    for (const storage of [annotations(), StatusProgressStorage.make()]) {
      const patch: Patch = {};
      storage.store({ key, record: { retries: 1 }, body: {}, patch });
      expect(ok(storage.fetch({ key, body: patch as RawBody }))).toMatchObject({ retries: 1 });
      expect(ok(storage.fetch({ key, body: {} }))).toBeUndefined();
    }
  });

  it("store then fetch gives the record back (without nulls unless verbose) in every storage", () => {
    fc.assert(
      fc.property(
        recordArb,
        fc.string({ minLength: 1, maxLength: 80 }),
        fc.boolean(),
        (record, key, verbose) => {
          for (const storage of [
            annotations({ verbose }),
            annotations({ prefix: P, v1: false, verbose }),
            StatusProgressStorage.make(),
          ]) {
            const patch: Patch = {};
            storage.store({ key, record, body: {}, patch });
            const fetched = ok(storage.fetch({ key, body: patch as RawBody }));
            const expected = ProgressRecord.toJson(
              record,
              verbose || storage._tag === "StatusProgressStorage",
            );
            expect(fetched).toEqual(expected);
            const purged: Patch = {};
            storage.purge({ key, body: patch as RawBody, patch: purged });
            expect(ok(storage.fetch({ key, body: purged as RawBody }))).toBeUndefined();
          }
        },
      ),
    );
  });

  it("a record written by pyDumps parses back equal", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const text = ProgressRecord.encode(record, false);
        expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
        expect(ok(ProgressRecord.decode(text, "k"))).toEqual(ProgressRecord.toJson(record, false));
      }),
    );
  });
});
