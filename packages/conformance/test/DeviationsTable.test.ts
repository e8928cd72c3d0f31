// Covers the committed deviations table itself (no server needed): the JSON decodes, every entry
// names an interaction the sequences really contain, and docs/emulator-deviations.md documents
// exactly the same interactions, so the human table and the checked one cannot drift apart.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Result } from "effect";
import { describe, expect, it } from "vitest";
import * as Cluster from "../src/Cluster.ts";
import * as Deviations from "../src/Deviations.ts";
import * as Sequences from "../src/sequences/index.ts";

const json: unknown = JSON.parse(readFileSync(join(import.meta.dirname, "emulator-deviations.json"), "utf8"));
const markdown = readFileSync(join(Cluster.repositoryRoot, "docs/emulator-deviations.md"), "utf8");
const decoded = Deviations.decode(json);
const table = Result.isSuccess(decoded) ? decoded.success : [];

describe("the deviations table", () => {
  it("decodes", () => {
    expect(Result.isSuccess(decoded) ? "ok" : decoded.failure.message).toBe("ok");
  });

  it("names only interactions the sequences contain", () => {
    const ids = new Set(Sequences.all("x").flatMap((s) => s.steps.map((step) => `${s.name}/${step.name}`)));
    expect(
      table.map((d) => d.interaction).filter((p) => ![...ids].some((i) => Deviations.matches(p, i))),
    ).toEqual([]);
  });

  it("is documented entry by entry in docs/emulator-deviations.md", () => {
    const documented = [...markdown.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual(table.map((d) => d.interaction).sort());
  });
});
