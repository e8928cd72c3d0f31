// Covers unknown top-level fields of built-in kinds as kube-apiserver v1.34.4 decodes them (the
// conformance suite's limits/unknown-field* interactions): dropped with a warning by default and
// under fieldValidation=Warn, dropped silently under Ignore, a 400 under Strict; known fields and
// custom resources are left alone.
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import * as BuiltinFields from "../../src/api/BuiltinFields.ts";
import { BUILTINS } from "../../src/api/ResourceType.ts";
import { cm, run, send } from "./Harness.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const withSpec = (name: string) => ({ ...cm(name), spec: { x: 1 } });

describe("unknown top-level fields of a ConfigMap", () => {
  it.each([
    { query: "", warning: '299 - "unknown field \\"spec\\""' },
    { query: "?fieldValidation=Warn", warning: '299 - "unknown field \\"spec\\""' },
    { query: "?fieldValidation=Ignore", warning: undefined },
  ])("are dropped$query", async ({ query, warning }) => {
    const created = await run(send("POST", `${CMS}${query}`, withSpec("c")));
    expect(created.status).toBe(201);
    expect(created.body.spec).toBeUndefined();
    expect(created.body.data).toEqual({ a: "1" });
    expect(created.headers.warning).toBe(warning);
  });

  it("are a 400 under fieldValidation=Strict", async () => {
    const r = await run(send("POST", `${CMS}?fieldValidation=Strict`, withSpec("c")));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
  });

  it("are dropped from patches too", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CMS, cm("c"));
        return yield* send(
          "PATCH",
          `${CMS}/c`,
          { spec: { x: 1 } },
          { "content-type": "application/merge-patch+json" },
        );
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.spec).toBeUndefined();
    expect(r.headers.warning).toBe('299 - "unknown field \\"spec\\""');
  });
});

describe("BuiltinFields.prune", () => {
  const type = (plural: string) => {
    const found = BUILTINS.find((t) => t.plural === plural && t.group !== "events.k8s.io");
    if (found === undefined) throw new Error(`no built-in ${plural}`);
    return found;
  };

  it.each<[string, Record<string, unknown>, ReadonlyArray<string>]>([
    ["configmaps", { kind: "ConfigMap", data: {}, immutable: true, spec: 1, extra: 2 }, ["spec", "extra"]],
    ["secrets", { kind: "Secret", type: "Opaque", stringData: {}, status: {} }, ["status"]],
    ["pods", { kind: "Pod", spec: { unknownInside: 1 }, status: {} }, []],
    ["deployments", { kind: "Deployment", spec: {}, replicas: 3 }, ["replicas"]],
    ["leases", { kind: "Lease", spec: {}, status: {} }, ["status"]],
    [
      "validatingwebhookconfigurations",
      { kind: "ValidatingWebhookConfiguration", webhooks: [], spec: {} },
      ["spec"],
    ],
  ])("%s", (plural, obj, expected) => {
    const dropped: Array<string> = [];
    const pruned = BuiltinFields.prune(type(plural), obj, dropped);
    expect(dropped).toEqual(expected);
    for (const key of expected) expect(pruned).not.toHaveProperty(key);
    for (const key of Object.keys(obj).filter((k) => !expected.includes(k)))
      expect(pruned[key]).toEqual(obj[key]);
  });
});
