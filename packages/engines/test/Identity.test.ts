/**
 * Identities (docs/behaviour/peering.md#presence-records, docs/behaviour/peering.md): POD_ID wins; operators get `user@host/YYYYmmddHHMMSS/rnd`,
 * freeze/resume `user@host`; the most descriptive hostname is preferred; `.local` and
 * `.localdomain` suffixes are stripped repeatedly.
 */
import { assert, describe, it } from "@effect/vitest";
import { IsoTime } from "@kopf/structs";
import * as Result from "effect/Result";
import * as Identity from "../src/Identity.ts";

const now = Result.getOrThrow(IsoTime.parse("2020-12-31T23:59:59.123456+00:00"));
const sources = { podId: undefined, user: "some-user", hostnames: ["some-host"], now, random: "random-str" };

describe("make", () => {
  it.each([
    [{ ...sources, podId: "pod-1" }, false, "pod-1"],
    [{ ...sources, podId: "pod-1" }, true, "pod-1"],
    [sources, false, "some-user@some-host/20201231235959/random-str"],
    [sources, true, "some-user@some-host"],
  ])("%j manual=%s ⇒ %s", (input, manual, expected) => {
    assert.strictEqual(Identity.make(input, manual), expected);
  });
});

describe("descriptiveHostname", () => {
  it.each([
    [["plain", "host.example.com"], "host.example.com"],
    [["1.2.3.4", "plain"], "plain"],
    [["::1", "host.example.com"], "host.example.com"],
    [["4.3.2.1.in-addr.arpa", "plain"], "plain"],
    [["localhost", "real"], "real"],
    [["localhost"], "localhost"],
    [["1.2.3.4"], "1.2.3.4"],
    [["box.local"], "box"],
    [["box.localdomain.local"], "box"],
    [["box.local.localdomain", "box.example.org"], "box.example.org"],
  ])("%j ⇒ %s", (names, expected) => {
    assert.strictEqual(Identity.descriptiveHostname(names), expected);
  });
});
