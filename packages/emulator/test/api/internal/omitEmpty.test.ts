// What typed decoding loses (src/api/internal/omitEmpty.ts): empty or null `omitempty` fields of
// ObjectMeta and of a ConfigMap's or Secret's data go; other fields, and custom resources' own
// fields, stay; the object is copied only when something goes.
import { describe, expect, it } from "vitest";
import { omitEmpty } from "../../../src/api/internal/omitEmpty.ts";
import { BUILTINS, type ResourceType } from "../../../src/api/ResourceType.ts";

const typeOf = (group: string, plural: string): ResourceType => {
  const found = BUILTINS.find((t) => t.group === group && t.plural === plural);
  if (found === undefined) throw new Error(`no built-in ${plural}`);
  return found;
};
const configmaps = typeOf("", "configmaps");
const secrets = typeOf("", "secrets");
const pods = typeOf("", "pods");
const custom: ResourceType = { ...configmaps, group: "kopf.dev", plural: "kopfexamples", custom: true };

describe("omitEmpty", () => {
  it.each([
    [
      "empty labels and annotations",
      configmaps,
      { metadata: { name: "x", labels: {}, annotations: null } },
      { metadata: { name: "x" } },
    ],
    [
      "empty finalizers and ownerReferences",
      pods,
      { metadata: { name: "x", finalizers: [], ownerReferences: [] } },
      { metadata: { name: "x" } },
    ],
    [
      "a ConfigMap's empty data and binaryData",
      configmaps,
      { metadata: { name: "x" }, data: {}, binaryData: null },
      { metadata: { name: "x" } },
    ],
    [
      "a Secret's empty data and stringData",
      secrets,
      { metadata: { name: "x" }, data: {}, stringData: {} },
      { metadata: { name: "x" } },
    ],
    [
      "not a Pod's empty spec fields",
      pods,
      { metadata: { name: "x" }, spec: { containers: [] }, data: {} },
      { metadata: { name: "x" }, spec: { containers: [] }, data: {} },
    ],
    [
      "a custom resource's metadata only",
      custom,
      { metadata: { name: "x", labels: {} }, data: {} },
      { metadata: { name: "x" }, data: {} },
    ],
    [
      "nothing from non-empty fields",
      configmaps,
      { metadata: { name: "x", labels: { a: "1" } }, data: { k: "" } },
      { metadata: { name: "x", labels: { a: "1" } }, data: { k: "" } },
    ],
    ["the empty data of a body without metadata", configmaps, { data: {} }, {}],
  ])("drops %s", (_, type, given, expected) => {
    const before = structuredClone(given);
    expect(omitEmpty(type, given)).toEqual(expected);
    expect(given).toEqual(before);
  });

  it("answers the object itself when nothing goes", () => {
    const obj = { metadata: { name: "x", labels: { a: "1" } }, data: { k: "v" } };
    expect(omitEmpty(configmaps, obj)).toBe(obj);
  });
});
