// Covers CrdServing: the expectation of every kind of CRD event (served versions only; deleted
// or serving nothing → gone; malformed → unknown) and whether a scan meets it.
import { Resource } from "@kopf/structs";
import { describe, expect, it } from "vitest";
import * as CrdServing from "../src/CrdServing.ts";

const crd = (versions: unknown, extra: Record<string, unknown> = {}) => ({
  metadata: { name: "kopfexamples.kopf.dev" },
  spec: { group: "kopf.dev", names: { plural: "kopfexamples", kind: "KopfExample" }, versions, ...extra },
});
const served = (versions: ReadonlyArray<string>): CrdServing.Expectation => ({
  _tag: "Served",
  group: "kopf.dev",
  plural: "kopfexamples",
  versions,
});
const gone: CrdServing.Expectation = { _tag: "Gone", group: "kopf.dev", plural: "kopfexamples" };

describe("CrdServing.expectation", () => {
  it.each<[string, "ADDED" | "MODIFIED" | "DELETED", unknown, CrdServing.Expectation]>([
    ["an added CRD", "ADDED", crd([{ name: "v1", served: true }]), served(["v1"])],
    ["a modified CRD", "MODIFIED", crd([{ name: "v1", served: true }]), served(["v1"])],
    ["served defaults to true", "ADDED", crd([{ name: "v1" }]), served(["v1"])],
    [
      "only the served versions",
      "ADDED",
      crd([{ name: "v1", served: false }, { name: "v2", served: true }, { name: "v3" }]),
      served(["v2", "v3"]),
    ],
    ["a deleted CRD", "DELETED", crd([{ name: "v1", served: true }]), gone],
    ["a CRD serving no version", "MODIFIED", crd([{ name: "v1", served: false }]), gone],
    ["no versions at all", "ADDED", crd(undefined), gone],
    ["versions that are not objects", "ADDED", crd(["v1", null, 3]), gone],
    [
      "no group",
      "ADDED",
      { spec: { names: { plural: "x" }, versions: [{ name: "v1" }] } },
      CrdServing.unknown,
    ],
    [
      "no plural",
      "ADDED",
      { spec: { group: "g", names: {}, versions: [{ name: "v1" }] } },
      CrdServing.unknown,
    ],
    ["no spec", "DELETED", { metadata: {} }, CrdServing.unknown],
    ["not an object", "ADDED", "nonsense", CrdServing.unknown],
    ["null", "ADDED", null, CrdServing.unknown],
  ])("%s", (_name, type, object, expected) => {
    expect(CrdServing.expectation(type, object)).toEqual(expected);
  });
});

const resource = (version: string, plural = "kopfexamples", group = "kopf.dev") =>
  Resource.make({ group, version, plural, kind: "KopfExample", namespaced: true });

describe("CrdServing.isMet", () => {
  it.each<[string, CrdServing.Expectation, ReadonlyArray<Resource.Resource>, boolean]>([
    ["unknown: any scan", CrdServing.unknown, [], true],
    ["served: listed", served(["v1"]), [resource("v1")], true],
    ["served: not yet listed", served(["v1"]), [], false],
    ["served: one of two versions listed", served(["v1", "v2"]), [resource("v1")], false],
    ["served: both versions listed", served(["v1", "v2"]), [resource("v2"), resource("v1")], true],
    ["served: another plural of the group", served(["v1"]), [resource("v1", "others")], false],
    [
      "served: the plural in another group",
      served(["v1"]),
      [resource("v1", "kopfexamples", "other.dev")],
      false,
    ],
    ["gone: still listed", gone, [resource("v1")], false],
    ["gone: unlisted", gone, [resource("v1", "others")], true],
    ["gone: empty scan", gone, [], true],
  ])("%s", (_name, expected, scanned, met) => {
    expect(CrdServing.isMet(expected, scanned)).toBe(met);
  });
});
