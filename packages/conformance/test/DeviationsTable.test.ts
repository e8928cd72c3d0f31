// Covers the committed deviations table itself (no server needed): the JSON decodes, every entry
// names interactions the sequences really contain, and docs/emulator-deviations.md embeds exactly
// the table rendered from the JSON, so the documented and the checked table cannot drift apart.
// Regenerate the document's table with KOPF_WRITE_DEVIATIONS_DOC=1 and this test.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import * as Cluster from "../src/Cluster.ts";
import * as Deviations from "../src/Deviations.ts";
import * as Sequences from "../src/sequences/index.ts";

const json: unknown = JSON.parse(readFileSync(join(import.meta.dirname, "emulator-deviations.json"), "utf8"));
const docPath = join(Cluster.repositoryRoot, "docs/emulator-deviations.md");
const decoded = Deviations.decode(json);
const table = Result.isSuccess(decoded) ? decoded.success : [];
const BEGIN = "<!-- deviations:begin -->\n";
const END = "<!-- deviations:end -->";
const webhook = { url: "https://127.0.0.1:1", caBundle: "" };

describe("the deviations table", () => {
  it("decodes", () => {
    expect(Result.isSuccess(decoded) ? "ok" : decoded.failure.message).toBe("ok");
  });

  it("names only interactions the sequences contain", () => {
    const ids = Sequences.all("x", webhook).flatMap((s) => s.steps.map((step) => `${s.name}/${step.name}`));
    expect(table.map((d) => d.interaction).filter((p) => !ids.some((i) => Deviations.matches(p, i)))).toEqual(
      [],
    );
  });

  it("is the table docs/emulator-deviations.md embeds", () => {
    let doc = readFileSync(docPath, "utf8");
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start >= 0 && end > start ? "markers found" : "markers missing").toBe("markers found");
    if (process.env.KOPF_WRITE_DEVIATIONS_DOC === "1") {
      doc = `${doc.slice(0, start + BEGIN.length)}${Deviations.markdown(table)}${doc.slice(end)}`;
      writeFileSync(docPath, doc);
    }
    expect(doc.slice(start + BEGIN.length, doc.indexOf(END))).toBe(Deviations.markdown(table));
  });
});
