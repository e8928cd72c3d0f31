// The `KOPF_RUN_*` fallbacks of `kopf run`'s options (src/internal/runEnv.ts): an option's
// variable by name, empty as unset, split into words, and read as a boolean in Click's spellings,
// anything else an error naming the variable and the value.
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { envBoolean, envKey, envString, envWords } from "../../src/internal/runEnv.ts";

describe("runEnv", () => {
  it.each([
    ["namespaces", "KOPF_RUN_NAMESPACES"],
    ["log-format", "KOPF_RUN_LOG_FORMAT"],
    ["all-namespaces", "KOPF_RUN_ALL_NAMESPACES"],
  ])("the variable of %s is %s", (option, key) => {
    expect(envKey(option)).toBe(key);
  });

  it.each([
    [{}, undefined],
    [{ KOPF_RUN_PEERING: "" }, undefined],
    [{ KOPF_RUN_PEERING: "example" }, "example"],
    [{ KOPF_RUN_PEERING: " spaced " }, " spaced "],
  ])("reads %j as the string %j", (env, expected) => {
    expect(envString(env, "peering")).toBe(expected);
  });

  it.each([
    [{}, []],
    [{ KOPF_RUN_NAMESPACES: "" }, []],
    [{ KOPF_RUN_NAMESPACES: "ns1" }, ["ns1"]],
    [{ KOPF_RUN_NAMESPACES: "  ns1 \t ns2\nns-* " }, ["ns1", "ns2", "ns-*"]],
  ])("reads %j as the words %j", (env, expected) => {
    expect(envWords(env, "namespaces")).toEqual(expected);
  });

  const booleans: ReadonlyArray<readonly [string | undefined, boolean | undefined]> = [
    [undefined, undefined],
    ["", undefined],
    ...["1", "true", "T", "yes", "Y", "on", " On "].map((value) => [value, true] as const),
    ...["0", "false", "F", "no", "N", "off"].map((value) => [value, false] as const),
  ];
  it.each(booleans)("reads KOPF_RUN_STANDALONE=%j as %j", (value, expected) => {
    const env = value === undefined ? {} : { KOPF_RUN_STANDALONE: value };
    expect(envBoolean(env, "standalone")).toEqual(Result.succeed(expected));
  });

  it.each(["maybe", "2", "truthy"])("refuses KOPF_RUN_STANDALONE=%s, naming it", (value) => {
    expect(envBoolean({ KOPF_RUN_STANDALONE: value }, "standalone")).toEqual(
      Result.fail(`KOPF_RUN_STANDALONE=${value} is not a boolean (use true or false)`),
    );
  });
});
