/** Managed webhook configurations' contents (docs/behaviour/admission.md#managed-configurations). */
import { assert, describe, it } from "@effect/vitest";
import { ABSENT, PRESENT, Registry } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import * as fc from "fast-check";
import { ManagedWebhooks } from "../src/index.ts";
import { RESOURCE, SPEC } from "./fixtures/reviews.ts";

function fn() {}

const built = (
  register: (r: Registry.Registry) => void,
  options: {
    persistentOnly?: boolean;
    resources?: ReadonlyArray<Resource.Resource>;
    reason?: "validating" | "mutating";
  } = {},
  clientConfig = { url: "https://hostname/p1/p2", service: { namespace: "ns", name: "svc", path: "p1/p2" } },
) => {
  const registry = Registry.make();
  register(registry);
  return ManagedWebhooks.build({
    handlers: registry.webhooks,
    reason: options.reason ?? "validating",
    resources: options.resources ?? [RESOURCE],
    name: "sfx",
    clientConfig,
    persistentOnly: options.persistentOnly,
  });
};

describe("ManagedWebhooks.build", () => {
  it.each([
    ["id", undefined, "id.sfx", "/id"],
    ["id.", undefined, "id..sfx", "/id."],
    ["id-", undefined, "id-.sfx", "/id-"],
    ["id_", undefined, "id-.sfx", "/id_"],
    ["id!", undefined, "id21.sfx", "/id%21"],
    ["id%", undefined, "id25.sfx", "/id%25"],
    ["id/sub", undefined, "id.sub.sfx", "/id/sub"],
    ["id", "fld1.fld2", "id.fld1.fld2.sfx", "/id/fld1.fld2"],
  ] as const)("id %s (field %s) ⇒ name %s, path suffix %s", (id, field, name, suffix) => {
    const [webhook] = built((r) => r.on.validate(SPEC, field === undefined ? { id } : { id, field }, fn));
    assert.strictEqual(webhook?.name, name);
    assert.strictEqual(webhook?.clientConfig.url, `https://hostname/p1/p2${suffix}`);
    assert.strictEqual(webhook?.clientConfig.service?.path, `p1/p2${suffix}`);
  });

  it("fills the fixed fields as Kopf does", () => {
    const [webhook] = built((r) => r.on.validate(SPEC, { id: "id" }, fn));
    assert.deepStrictEqual(webhook, {
      name: "id.sfx",
      sideEffects: "None",
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      rules: [
        {
          apiGroups: ["kopf.dev"],
          apiVersions: ["v1"],
          resources: ["kopfexamples"],
          operations: ["*"],
          scope: "*",
        },
      ],
      objectSelector: null,
      clientConfig: {
        url: "https://hostname/p1/p2/id",
        service: { namespace: "ns", name: "svc", path: "p1/p2/id" },
      },
      timeoutSeconds: 30,
      admissionReviewVersions: ["v1", "v1beta1"],
    });
  });

  it.each([
    [{ sideEffects: false }, "sideEffects", "None"],
    [{ sideEffects: true }, "sideEffects", "NoneOnDryRun"],
    [{ ignoreFailures: false }, "failurePolicy", "Fail"],
    [{ ignoreFailures: true }, "failurePolicy", "Ignore"],
  ] as const)("flags %o ⇒ %s %s", (flags, field, value) => {
    const [webhook] = built((r) => r.on.validate(SPEC, { id: "id", ...flags }, fn));
    assert.strictEqual((webhook as any)[field], value);
  });

  it.each([
    [undefined, ["*"]],
    [["CREATE"], ["CREATE"]],
    [
      ["CREATE", "UPDATE"],
      ["CREATE", "UPDATE"],
    ],
    [new Set(["DELETE"]), ["DELETE"]],
  ] as const)("operations %o ⇒ %o", (operations, expected) => {
    const [webhook] = built((r) =>
      r.on.validate(
        SPEC,
        operations === undefined ? { id: "id" } : { id: "id", operations: operations as any },
        fn,
      ),
    );
    assert.deepStrictEqual(webhook?.rules[0]?.operations, expected);
  });

  it.each([
    [undefined, "kopfexamples"],
    ["xyz", "kopfexamples/xyz"],
    ["*", "kopfexamples/*"],
  ] as const)("subresource %s ⇒ %s", (subresource, expected) => {
    const [webhook] = built((r) =>
      r.on.validate(SPEC, subresource === undefined ? { id: "id" } : { id: "id", subresource }, fn),
    );
    assert.deepStrictEqual(webhook?.rules[0]?.resources, [expected]);
  });

  it("two handlers ⇒ two webhooks; other kinds are not included", () => {
    const webhooks = built((r) => {
      r.on.validate(SPEC, { id: "a" }, fn);
      r.on.validate(SPEC, { id: "b" }, fn);
      r.on.mutate(SPEC, { id: "c" }, fn);
    });
    assert.deepStrictEqual(
      webhooks.map((w) => w.name),
      ["a.sfx", "b.sfx"],
    );
  });

  it("a handler of a non-served resource ⇒ a webhook with no rules", () => {
    const other = Resource.make({ group: "other.dev", version: "v1", plural: "others", kind: "Other" });
    const [webhook] = built((r) => r.on.validate(SPEC, { id: "id" }, fn), { resources: [other] });
    assert.deepStrictEqual(webhook?.rules, []);
  });

  it.each([
    [{ app: PRESENT }, { matchExpressions: [{ key: "app", operator: "Exists" }] }],
    [{ app: ABSENT }, { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }],
    [{ app: "val" }, { matchExpressions: [{ key: "app", operator: "In", values: ["val"] }] }],
    [{ app: () => true }, null],
  ] as const)("labels %o ⇒ objectSelector %o", (labels, expected) => {
    const [webhook] = built((r) => r.on.validate(SPEC, { id: "id", labels: labels as any }, fn));
    assert.deepStrictEqual(webhook?.objectSelector, expected);
  });

  it("persistent-only mode keeps only persistent handlers", () => {
    const register = (r: Registry.Registry) => {
      r.on.validate(SPEC, { id: "kept", persistent: true }, fn);
      r.on.validate(SPEC, { id: "gone" }, fn);
    };
    assert.deepStrictEqual(
      built(register, { persistentOnly: true }).map((w) => w.name),
      ["kept.sfx"],
    );
    assert.strictEqual(built(register).length, 2);
  });

  it("an empty suffix leaves the name as the normalised id; a service path is appended as given", () => {
    assert.strictEqual(ManagedWebhooks.webhookName("id_1/sub", ""), "id-1.sub");
    assert.deepStrictEqual(
      ManagedWebhooks.handlerClientConfig({ service: { namespace: "n", name: "s" } }, "id"),
      {
        service: { namespace: "n", name: "s", path: "/id" },
      },
    );
  });

  it("a URL-only config stays URL-only", () => {
    const [webhook] = built((r) => r.on.validate(SPEC, { id: "id" }, fn), {}, {
      url: "https://h:8443/",
    } as any);
    assert.deepStrictEqual(webhook?.clientConfig, { url: "https://h:8443/id" });
  });

  it("property: names are valid DNS-ish names ending with the suffix", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), (id) => {
        const name = ManagedWebhooks.webhookName(id, "sfx");
        return name.endsWith(".sfx") && /^[\p{L}\p{N}_.-]+$/u.test(name);
      }),
    );
  });
});
