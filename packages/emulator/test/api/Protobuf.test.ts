/** Protobuf request bodies (what typed clients like `kubectl create namespace` send), decoded into the objects' JSON form. */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import * as Protobuf from "../../src/api/Protobuf.ts";
import { run, send } from "./Harness.ts";

/** A minimal protobuf writer for the tests. */
const varint = (n: number): Array<number> => {
  const out: Array<number> = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
};
const bytesField = (num: number, bytes: ReadonlyArray<number>): Array<number> => [
  ...varint((num << 3) | 2),
  ...varint(bytes.length),
  ...bytes,
];
const str = (num: number, s: string): Array<number> => bytesField(num, [...new TextEncoder().encode(s)]);
const int = (num: number, n: number): Array<number> => [...varint(num << 3), ...varint(n)];
const mapEntry = (num: number, k: string, v: Array<number>): Array<number> =>
  bytesField(num, [...str(1, k), ...v]);
const envelope = (apiVersion: string, kind: string, raw: Array<number>): Uint8Array =>
  new Uint8Array([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...bytesField(1, [...str(1, apiVersion), ...str(2, kind)]),
    ...bytesField(2, raw),
    ...str(3, ""),
    ...str(4, ""),
  ]);

/** ObjectMeta as Go marshals it: every non-pointer field written, zero or not. */
const objectMeta = (name: string, labels: Record<string, string> = {}) => [
  ...str(1, name),
  ...str(2, ""),
  ...str(3, ""),
  ...int(7, 0),
  ...bytesField(8, []),
  ...Object.entries(labels).flatMap(([k, v]) => mapEntry(11, k, str(2, v))),
];

const PROTO = { "content-type": "application/vnd.kubernetes.protobuf" };

describe("protobuf bodies", () => {
  it("decode a Namespace with Go's zero values dropped", () => {
    const r = Protobuf.decode(
      envelope("v1", "Namespace", [
        ...bytesField(1, objectMeta("ns1")),
        ...bytesField(2, []),
        ...bytesField(3, []),
      ]),
    );
    expect(r).toEqual(
      Result.succeed({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "ns1" },
        spec: {},
        status: {},
      }),
    );
  });

  it("decode maps, bytes and pointer integers", () => {
    const secret = Protobuf.decode(
      envelope("v1", "Secret", [
        ...bytesField(1, objectMeta("s", { a: "b" })),
        ...mapEntry(2, "k", bytesField(2, [0x68, 0x69])),
        ...str(3, "Opaque"),
      ]),
    );
    expect(secret).toEqual(
      Result.succeed({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s", labels: { a: "b" } },
        data: { k: "aGk=" },
        type: "Opaque",
      }),
    );
    const deployment = Protobuf.decode(
      envelope("apps/v1", "Deployment", [...bytesField(1, objectMeta("d")), ...bytesField(2, int(1, 0))]),
    );
    expect(Result.isSuccess(deployment) && deployment.success.spec).toEqual({ replicas: 0 });
  });

  it.each([
    ["no envelope", new Uint8Array([1, 2, 3, 4, 5])],
    ["an unknown kind", envelope("v1", "Nope", [])],
    ["a truncated message", envelope("v1", "ConfigMap", [0x0a, 0x05, 0x01])],
  ])("reject %s", (_n, body) => {
    expect(Result.isFailure(Protobuf.decode(body))).toBe(true);
  });

  it("are accepted by create for built-in types", async () => {
    const body = envelope("v1", "ConfigMap", [
      ...bytesField(1, objectMeta("pb")),
      ...mapEntry(2, "a", str(2, "1")),
    ]);
    const r = await run(send("POST", "/api/v1/namespaces/default/configmaps", body, PROTO));
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ a: "1" });
    expect(r.body.metadata.name).toBe("pb");
  });

  it("are rejected with 400 when malformed", async () => {
    const r = await run(
      send(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0xff]),
        PROTO,
      ),
    );
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^unable to decode protobuf body: /);
  });

  it("are refused with 415 for custom resources", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "things.kopf.dev" },
          spec: {
            group: "kopf.dev",
            scope: "Namespaced",
            names: { plural: "things", kind: "Thing" },
            versions: [
              { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
            ],
          },
        });
        return yield* send(
          "POST",
          "/apis/kopf.dev/v1/namespaces/default/things",
          envelope("kopf.dev/v1", "Thing", []),
          PROTO,
        );
      }),
    );
    expect(r.status).toBe(415);
  });
});
