/**
 * The settings table of docs/guide/settings.md, generated from the code so that it cannot drift:
 * the defaults come from `Settings.defaults` (passed in), the descriptions from the doc comments
 * of `packages/settings/src/SettingsTree.ts` (passed in as text). scripts/test/docs-snippets.test.ts
 * compares the table in the guide with this one; `UPDATE_DOCS=1` makes that test rewrite it.
 * Nothing runs at import.
 */

/** One row: the dotted path of a setting, its default as shown, its description. */
export interface SettingRow {
  readonly path: string;
  readonly default: string;
  readonly description: string;
}

/** The markers around the generated table in settings.md. */
export const START =
  "<!-- settings-table:start (generated; UPDATE_DOCS=1 vitest run scripts/test/docs-snippets.test.ts) -->";
export const END = "<!-- settings-table:end -->";

/** Shows a default value: JSON for data, the tag and string fields for storages. */
export const showValue = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(showValue).join(", ")}]`;
  const record = value as Readonly<Record<string, unknown>>;
  if (typeof record._tag === "string") {
    const parts = Object.entries(record).flatMap(([key, field]) =>
      key === "_tag"
        ? []
        : typeof field === "string"
          ? [`${key}: ${JSON.stringify(field)}`]
          : key === "storages" && Array.isArray(field)
            ? [field.map(showValue).join(", ")]
            : [],
    );
    return `${record._tag}(${parts.join(", ")})`;
  }
  return JSON.stringify(value);
};

const cleanComment = (lines: ReadonlyArray<string>): string => {
  const text: Array<string> = [];
  const deprecated: Array<string> = [];
  let inDeprecated = false;
  for (const raw of lines) {
    const line = raw
      .replace(/^\s*\/\*\*\s?/, "")
      .replace(/\s*\*\/\s*$/, "")
      .replace(/^\s*\*\s?/, "")
      .trim();
    if (line.startsWith("@deprecated")) {
      inDeprecated = true;
      deprecated.push(line.replace("@deprecated", "").trim());
    } else if (line !== "") {
      (inDeprecated ? deprecated : text).push(line);
    }
  }
  const body = text
    .join(" ")
    .replace(/\s*Default `[^`]*`( \([^)]*\))?\.?/g, "")
    .replace(/\.\s*;\s*(\w)/g, (_, c: string) => `. ${c.toUpperCase()}`)
    .replace(/\s*\(docs\/behaviour\/[^)]*\)/g, "")
    .trim();
  return deprecated.length > 0 ? `${body} Deprecated: ${deprecated.join(" ")}` : body;
};

/** The doc comment's lines of every setting, by dotted path, from the text of SettingsTree.ts. */
const comments = (treeSource: string): ReadonlyMap<string, ReadonlyArray<string>> => {
  const lines = treeSource.split("\n");
  const groupOf = new Map<string, string>(); // interface name -> group key
  for (const match of treeSource.matchAll(/readonly (\w+): (\w+Settings);/g)) {
    groupOf.set(match[2] as string, match[1] as string);
  }
  const result = new Map<string, ReadonlyArray<string>>();
  let group: string | undefined;
  let comment: Array<string> = [];
  let inComment = false;
  for (const line of lines) {
    const iface = /^export interface (\w+) \{/.exec(line);
    if (iface !== null) {
      group = groupOf.get(iface[1] as string);
      comment = [];
      continue;
    }
    if (/^\s+\/\*\*/.test(line)) {
      inComment = !line.includes("*/");
      comment = [line];
      continue;
    }
    if (inComment) {
      comment.push(line);
      if (line.includes("*/")) inComment = false;
      continue;
    }
    const field = /^\s+readonly (\w+)[?]?:/.exec(line);
    if (field !== null && group !== undefined) {
      result.set(`${group}.${field[1]}`, comment);
      comment = [];
    }
  }
  return result;
};

/**
 * The descriptions of every setting, by dotted path, from the text of SettingsTree.ts.
 *
 * @example
 * descriptions(source).get("watching.inactivityTimeout") // "Seconds of silence (...) ..."
 */
export const descriptions = (treeSource: string): ReadonlyMap<string, string> =>
  new Map([...comments(treeSource)].map(([path, lines]) => [path, cleanComment(lines)]));

/**
 * The defaults the doc comments of SettingsTree.ts state (`Default \`32\``), by dotted path: the
 * table leaves them out of the descriptions and shows the real ones, and a test compares the two.
 *
 * @example
 * statedDefaults(source).get("queueing.cycleLimit") // "32"
 */
export const statedDefaults = (treeSource: string): ReadonlyMap<string, string> => {
  const stated = new Map<string, string>();
  for (const [path, lines] of comments(treeSource)) {
    const found = /Default `([^`]*)`/.exec(lines.join(" "));
    if (found !== null) stated.set(path, found[1] as string);
  }
  return stated;
};

/** The rows for a settings tree: every field of every group, in the tree's order. */
export const rows = (defaults: object, treeSource: string): ReadonlyArray<SettingRow> => {
  const described = descriptions(treeSource);
  return Object.entries(defaults).flatMap(([group, fields]) =>
    Object.entries(fields as object).map(([field, value]) => {
      const path = `${group}.${field}`;
      return { path, default: showValue(value), description: described.get(path) ?? "" };
    }),
  );
};

const cell = (text: string): string => text.replaceAll("|", "\\|");

/** The markdown table (unpadded; biome pads it). */
export const render = (table: ReadonlyArray<SettingRow>): string =>
  [
    "| setting | default | what it does |",
    "| --- | --- | --- |",
    ...table.map((row) => `| \`${row.path}\` | \`${cell(row.default)}\` | ${cell(row.description)} |`),
  ].join("\n");

/** The cells of a markdown table's body rows (padding and the header ignored). */
export const parseTable = (markdown: string): ReadonlyArray<ReadonlyArray<string>> =>
  markdown
    .split("\n")
    .filter((line) => line.trim().startsWith("|"))
    .slice(2)
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
