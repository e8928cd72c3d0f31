/** The field manager a write is recorded under when it names none: the user agent's product name. */
import { describe, expect, it } from "vitest";
import { managerOf } from "../../src/api/FieldManager.ts";

const of = (agent: string | undefined, fieldManager?: string) =>
  managerOf({
    query: new URLSearchParams(fieldManager === undefined ? {} : { fieldManager }),
    headers: agent === undefined ? {} : { "user-agent": agent },
  });

describe("managerOf", () => {
  it.each([
    { agent: "kubectl/v1.36.3 (linux/amd64) kubernetes/abc", manager: "kubectl" },
    { agent: "kopf", manager: "kopf" },
    { agent: "Python/3.12 aiohttp/3.9", manager: "Python" },
    { agent: "", manager: "unknown" },
    { agent: undefined, manager: "unknown" },
    { agent: "/v1", manager: "unknown" },
    // Control characters are dropped, ASCII or not.
    { agent: "a\tb\u0007c/1", manager: "abc" },
    { agent: "\u0000\u001f/1", manager: "unknown" },
    { agent: "op\u200bérateur/2", manager: "opérateur" },
    // At most 128 bytes of UTF-8, whole characters only.
    { agent: "x".repeat(200), manager: "x".repeat(128) },
    { agent: `${"x".repeat(127)}é`, manager: "x".repeat(127) },
    { agent: `${"x".repeat(126)}é/1`, manager: `${"x".repeat(126)}é` },
    { agent: `${"x".repeat(125)}😀`, manager: "x".repeat(125) },
    { agent: `${"x".repeat(124)}😀`, manager: `${"x".repeat(124)}😀` },
    { agent: "é".repeat(70), manager: "é".repeat(64) },
  ])("user agent $agent → $manager", ({ agent, manager }) => {
    expect(of(agent)).toBe(manager);
  });

  it("prefers an explicit fieldManager, unless it is empty", () => {
    expect(of("kubectl/1", "kopf")).toBe("kopf");
    expect(of("kubectl/1", "")).toBe("kubectl");
  });
});
