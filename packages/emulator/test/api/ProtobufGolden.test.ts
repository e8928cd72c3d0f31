// Covers protobuf request bodies: golden bodies captured from kubectl 1.32's typed commands
// (create namespace, configmap, secret generic, deployment) decode to the JSON a real API server
// would see (Go omitempty rules, zero times dropped, bytes as base64), and
// malformed or unsupported bodies fail with a reason; a fast-check property round-trips ConfigMap
// data maps through a small encoder.
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import fc from "fast-check";
import * as Protobuf from "../../src/api/Protobuf.ts";

const golden = {
  namespace:
    "6b3873000a0f0a02763112094e616d657370616365121b0a130a036e733112001a0022002a0032003800420012001a020a001a002200",
  configmap:
    "6b3873000a0f0a0276311209436f6e6669674d617012250a130a03636d3112001a0022002a0032003800420012060a016112016212060a01631201641a002200",
  secret:
    "6b3873000a0c0a0276311206536563726574121f0a120a02733112001a0022002a0032003800420012070a0270771201781a001a002200",
  deployment:
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412ba010a1f0a0377656212001a0022002a003200380042005a0a0a0361707012037765621288010802120c0a0a0a0361707012037765621a6e0a1c0a0012001a0022002a003200380042005a0a0a036170701203776562124e12300a056e67696e7812076e67696e783a312a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
};

const decode = (hex: string) => Protobuf.decode(Buffer.from(hex, "hex"));

describe("Protobuf.decode (bodies captured from kubectl)", () => {
  it.each([
    [
      "create namespace ns1",
      golden.namespace,
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" }, spec: {}, status: {} },
    ],
    [
      "create configmap cm1 --from-literal=a=b --from-literal=c=d",
      golden.configmap,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" }, data: { a: "b", c: "d" } },
    ],
    [
      "create secret generic s1 --from-literal=pw=x",
      golden.secret,
      { apiVersion: "v1", kind: "Secret", metadata: { name: "s1" }, data: { pw: "eA==" } },
    ],
  ] as const)("%s", (_, hex, expected) => {
    assert.deepStrictEqual<unknown>(decode(hex), Result.succeed(expected));
  });

  it("create deployment web --image=nginx:1 --replicas=2 --port=80", () => {
    const decoded = decode(golden.deployment);
    assert.isTrue(Result.isSuccess(decoded));
    const deployment = Result.getOrThrow(decoded) as Record<string, any>;
    assert.strictEqual(deployment.apiVersion, "apps/v1");
    assert.strictEqual(deployment.kind, "Deployment");
    assert.deepStrictEqual(deployment.metadata, { name: "web", labels: { app: "web" } });
    assert.strictEqual(deployment.spec.replicas, 2);
    assert.deepStrictEqual(deployment.spec.selector, { matchLabels: { app: "web" } });
    assert.deepStrictEqual(deployment.spec.strategy, {});
    assert.deepStrictEqual(deployment.spec.template.metadata, { labels: { app: "web" } });
    const [container] = deployment.spec.template.spec.containers;
    assert.deepStrictEqual(container, {
      name: "nginx",
      image: "nginx:1",
      ports: [{ containerPort: 80 }],
      resources: {},
    });
    assert.deepStrictEqual(deployment.status, {});
  });
});

// A tiny encoder for the property: a ConfigMap with a name and a data map.
const varint = (n: number): Array<number> => {
  const out: Array<number> = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
};
const bytesField = (number: number, payload: Uint8Array | Array<number>): Array<number> => [
  ...varint((number << 3) | 2),
  ...varint(payload.length),
  ...payload,
];
const text = (value: string) => [...new TextEncoder().encode(value)];
const envelope = (apiVersion: string, kind: string, raw: Array<number>): Buffer => {
  const typeMeta = [...bytesField(1, text(apiVersion)), ...bytesField(2, text(kind))];
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...bytesField(1, typeMeta), ...bytesField(2, raw)]);
};
const encodeConfigMap = (name: string, data: Record<string, string>): Buffer => {
  const meta = bytesField(1, text(name));
  const entries = Object.entries(data).flatMap(([k, v]) =>
    bytesField(2, [...bytesField(1, text(k)), ...bytesField(2, text(v))]),
  );
  return envelope("v1", "ConfigMap", [...bytesField(1, meta), ...entries]);
};

describe("Protobuf.decode (property)", () => {
  it("round-trips any ConfigMap name and data map", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 300 }), {
          maxKeys: 8,
        }),
        (name, data) => {
          const decoded = Protobuf.decode(encodeConfigMap(name, data));
          const expected = Object.keys(data).length === 0 ? {} : { data: { ...data } };
          assert.deepStrictEqual<unknown>(
            decoded,
            Result.succeed({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, ...expected }),
          );
        },
      ),
    );
  });
});

describe("Protobuf.decode failures", () => {
  it.each([
    ["no envelope", "7b7d", "the body does not start with the Kubernetes protobuf envelope"],
    [
      "an unknown kind",
      envelope("v1", "Widget", []).toString("hex"),
      "the emulator does not decode protobuf bodies of v1, Kind=Widget",
    ],
    ["a truncated body", golden.configmap.slice(0, 60), "truncated"],
    [
      "an unknown field",
      envelope("v1", "ConfigMap", [...varint(9 << 3), 1]).toString("hex"),
      "unsupported field 9 of core.ConfigMap",
    ],
  ])("rejects %s", (_, hex, message) => {
    const decoded = decode(hex);
    assert.isTrue(Result.isFailure(decoded));
    if (Result.isFailure(decoded)) assert.include(decoded.failure, message);
  });
});
