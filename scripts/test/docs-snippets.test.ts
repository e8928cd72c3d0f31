// The user documentation stays true to the code. Every ```ts block of README.md and
// docs/guide/*.md appears (line by line, indentation aside, imports possibly hoisted) in a file
// under docs/snippets/, which
// `tsc -p tsconfig.test.json` type-checks; the settings table of docs/guide/settings.md is the
// one generated from `Settings.defaults` and the doc comments of SettingsTree.ts (run with
// UPDATE_DOCS=1 to rewrite it); README's packages table lists exactly the packages of
// layers.json; relative links in the docs point at files that exist.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as SettingsTable from "../../docs/snippets/settingsTable.ts";
import { Settings } from "../../packages/settings/src/index.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const guides = readdirSync(join(root, "docs/guide"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/guide/${name}`);
const documents = ["README.md", ...guides];
const snippetFiles = readdirSync(join(root, "docs/snippets"))
  .filter((name) => name.endsWith(".ts"))
  .map((name) => `docs/snippets/${name}`);

/** The fenced blocks of a markdown text with the given languages. */
const blocks = (markdown: string, languages: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...markdown.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```\s*$/gm)]
    .filter((match) => languages.includes(match[1] as string))
    .map((match) => match[2] as string);

const lines = (text: string): ReadonlyArray<string> =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

/**
 * Whether `block`'s non-empty lines occur among `file`'s: its import lines anywhere (a snippet
 * file hoists the imports of all its blocks), the rest in order and contiguously.
 */
const contains = (file: ReadonlyArray<string>, block: ReadonlyArray<string>): boolean => {
  const imports = block.filter((line) => line.startsWith("import "));
  const code = block.filter((line) => !line.startsWith("import "));
  if (!imports.every((line) => file.includes(line))) return false;
  for (let start = 0; start + code.length <= file.length; start++) {
    if (code.every((line, i) => file[start + i] === line)) return true;
  }
  return false;
};

describe("the block matcher", () => {
  it.each([
    ["a\n  b\nc", "b\nc", true],
    ["a\nb\nc", "a\nc", false],
    ["a\n\nb", "a\nb", true],
    ["a", "a\nb", false],
    ['import x from "x";\nimport y from "y";\na\nb', 'import y from "y";\na\nb', true],
    ['import x from "x";\na\nb', 'import y from "y";\na\nb', false],
  ])("file %j contains block %j: %s", (file, block, expected) => {
    expect(contains(lines(file), lines(block))).toBe(expected);
  });
});

describe("TypeScript blocks of the docs", () => {
  const snippets = snippetFiles.map((path) => ({ path, lines: lines(read(path)) }));
  const cases = documents.flatMap((doc) =>
    blocks(read(doc), ["ts", "typescript"]).map((block, i) => ({ doc, n: i + 1, block })),
  );

  it("there are blocks to check", () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  it.each(cases)("$doc block $n is in a type-checked snippet", ({ block }) => {
    const wanted = lines(block);
    const found = snippets.filter((file) => contains(file.lines, wanted)).map((file) => file.path);
    expect(found, `not found in docs/snippets/*.ts:\n${block}`).not.toEqual([]);
  });
});

describe("the settings table", () => {
  const tree = read("packages/settings/src/SettingsTree.ts");
  const expected = SettingsTable.rows(Settings.defaults, tree);

  it("describes every setting", () => {
    const missing = expected.filter((row) => row.description === "").map((row) => row.path);
    expect(missing).toEqual([]);
  });

  it("states in the doc comments the defaults the settings have", () => {
    // Only the stated defaults that are data (JSON): storages are described by their factory.
    const wrong = [...SettingsTable.statedDefaults(tree)].flatMap(([path, stated]) => {
      const row = expected.find((candidate) => candidate.path === path);
      let value: unknown;
      try {
        value = JSON.parse(stated);
      } catch {
        return [];
      }
      return row === undefined || row.default === SettingsTable.showValue(value)
        ? []
        : [`${path}: the comment says ${stated}, the default is ${row.default}`];
    });
    expect(wrong).toEqual([]);
  });

  it("in docs/guide/settings.md is the one generated from the code", () => {
    const path = join(root, "docs/guide/settings.md");
    const doc = readFileSync(path, "utf8");
    const start = doc.indexOf(SettingsTable.START);
    const end = doc.indexOf(SettingsTable.END);
    expect(start, "settings.md lacks the table markers").toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const generated = SettingsTable.render(expected);
    if (process.env.UPDATE_DOCS === "1") {
      const updated = `${doc.slice(0, start + SettingsTable.START.length)}\n\n${generated}\n\n${doc.slice(end)}`;
      writeFileSync(path, updated);
      return;
    }
    const inDoc = SettingsTable.parseTable(doc.slice(start, end));
    expect(inDoc).toEqual(SettingsTable.parseTable(generated));
  });
});

describe("README.md", () => {
  const layers = JSON.parse(read("layers.json")) as { packages: Record<string, unknown> };
  const readme = read("README.md");

  it("lists exactly the packages of layers.json", () => {
    const section = readme.slice(readme.indexOf("## Packages"));
    const listed = SettingsTable.parseTable(section.slice(0, section.indexOf("\n## ", 1)))
      .map((cells) => /`([^`]+)`/.exec(cells[0] ?? "")?.[1])
      .filter((name) => name !== undefined)
      .sort();
    expect(listed).toEqual(Object.keys(layers.packages).sort());
  });

  it("links every guide", () => {
    for (const guide of guides) expect(readme).toContain(`(${guide})`);
  });
});

describe("relative links", () => {
  const cases = documents.flatMap((doc) =>
    [...read(doc).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((match) => match[1] as string)
      .filter((target) => !/^[a-z]+:/.test(target))
      .map((target) => ({ doc, target })),
  );

  it.each(cases)("$doc links $target, which exists", ({ doc, target }) => {
    expect(existsSync(resolve(root, dirname(doc), target))).toBe(true);
  });
});
