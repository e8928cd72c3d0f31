// The layering checker: given the layer table (layers.json) and the source files of the
// workspace, lists every import that breaks the contract. Pure: it takes file contents and
// returns violations, so its own tests can feed it synthetic trees.

/** One package's row in layers.json. */
export interface PackageRule {
  readonly dir: string;
  readonly layer: number;
  /** pure: no I/O; facade: re-exports; edge: may touch node:*, sockets, files, process. */
  readonly kind: "pure" | "facade" | "service" | "edge";
  readonly may: ReadonlyArray<string>;
  /** Module path prefixes (relative to the package dir) that count as edge code. */
  readonly edgeModules?: ReadonlyArray<string>;
}

export interface LayerTable {
  readonly packages: Readonly<Record<string, PackageRule>>;
}

export interface SourceFile {
  /** Repository-relative path with forward slashes. */
  readonly path: string;
  readonly text: string;
}

export interface Violation {
  readonly file: string;
  readonly message: string;
}

const NODE_BUILTINS = new Set([
  "assert",
  "async_hooks",
  "buffer",
  "child_process",
  "cluster",
  "console",
  "crypto",
  "dgram",
  "dns",
  "events",
  "fs",
  "fs/promises",
  "http",
  "http2",
  "https",
  "inspector",
  "module",
  "net",
  "os",
  "path",
  "perf_hooks",
  "process",
  "querystring",
  "readline",
  "stream",
  "string_decoder",
  "timers",
  "tls",
  "tty",
  "url",
  "util",
  "v8",
  "vm",
  "worker_threads",
  "zlib",
]);

const EDGE_ONLY_PACKAGES = ["@effect/platform-node", "undici", "ws"];

/** The testing kit: any package's tests and benchmarks may use it, whatever its layer. */
const TEST_KIT = ["@kopf/emulator", "@kopf/testing"];

/** Ambient time and randomness that make library code untestable in virtual time. */
const AMBIENT_TIME_AND_RANDOMNESS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bDate\.now\s*\(/, "Date.now()"],
  [/\bnew\s+Date\s*\(\s*\)/, "new Date() without arguments"],
  [/\bsetTimeout\s*\(/, "setTimeout"],
  [/\bsetInterval\s*\(/, "setInterval"],
  [/\bMath\.random\s*\(/, "Math.random()"],
  [/\bperformance\.now\s*\(/, "performance.now()"],
];

/** Strips comments and string/template contents so that `process` in prose is not counted. */
const stripCommentsAndStrings = (text: string): string =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/(^|[^:\\])\/\/.*$/gm, "$1")
    .replace(/`(?:\\[\s\S]|[^`\\])*`/g, "``")
    .replace(/"(?:\\.|[^"\\\n])*"/g, '""')
    .replace(/'(?:\\.|[^'\\\n])*'/g, "''");

/** Every module specifier imported or re-exported by a file (static and dynamic imports). */
export const importsOf = (text: string): ReadonlyArray<string> => {
  const noComments = text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:\\"'])\/\/.*$/gm, "$1");
  const specs: Array<string> = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?[\w*{}\s,$]*?\s*from\s*["']([^"']+)["']/g,
    /\bexport\s+(?:type\s+)?[\w*{}\s,$]*?\s*from\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of noComments.matchAll(pattern)) specs.push(match[1]!);
  }
  return specs;
};

const packageOfSpecifier = (spec: string): string => {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
};

const isNodeBuiltin = (spec: string): boolean => spec.startsWith("node:") || NODE_BUILTINS.has(spec);

const normalize = (path: string): string => {
  const out: Array<string> = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== "." && part !== "") out.push(part);
  }
  return out.join("/");
};

const dirname = (path: string): string => path.split("/").slice(0, -1).join("/");

/** Checks the table itself: every `may` entry exists and sits at a lower layer. */
export const checkTable = (table: LayerTable): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = [];
  for (const [name, rule] of Object.entries(table.packages)) {
    for (const dep of rule.may) {
      const target = table.packages[dep];
      if (!target)
        violations.push({ file: "layers.json", message: `${name} may import unknown package ${dep}` });
      else if (target.layer >= rule.layer) {
        violations.push({
          file: "layers.json",
          message: `${name} (layer ${rule.layer}) lists ${dep} (layer ${target.layer}): not a lower layer`,
        });
      }
    }
  }
  return violations;
};

/** Checks the files of the workspace against the table. */
export const checkFiles = (table: LayerTable, files: ReadonlyArray<SourceFile>): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = [];
  const byDir = Object.entries(table.packages).map(([name, rule]) => ({ name, rule }));
  for (const file of files) {
    const owner = byDir.find(({ rule }) => file.path.startsWith(`${rule.dir}/`));
    if (!owner) continue;
    const local = file.path.slice(owner.rule.dir.length + 1);
    // Tests and benchmarks are not library code: they may use Node, the testing kit and process.
    const isTest = local.startsWith("test/") || local.startsWith("bench/");
    const isEdge =
      owner.rule.kind === "edge" || (owner.rule.edgeModules ?? []).some((prefix) => local.startsWith(prefix));
    const report = (message: string) => violations.push({ file: file.path, message });
    for (const spec of importsOf(file.text)) {
      if (spec.startsWith(".")) {
        const resolved = normalize(`${dirname(file.path)}/${spec}`);
        if (!resolved.startsWith(`${owner.rule.dir}/`)) {
          report(`relative import "${spec}" leaves the package ${owner.name}`);
        }
        continue;
      }
      if (isNodeBuiltin(spec)) {
        if (!isEdge && !isTest) report(`imports "${spec}": only edge code may use Node built-ins`);
        continue;
      }
      const pkg = packageOfSpecifier(spec);
      if (EDGE_ONLY_PACKAGES.includes(pkg)) {
        if (!isEdge && !isTest) report(`imports "${spec}": only edge code may use it`);
        continue;
      }
      const target = table.packages[pkg];
      if (!target) {
        if (pkg.startsWith("@kopf/")) report(`imports "${spec}": ${pkg} is not in layers.json`);
        continue;
      }
      if (pkg === owner.name) {
        if (!isTest) report(`imports its own package "${spec}" by name; use a relative import`);
        continue;
      }
      if (spec !== pkg) report(`deep import "${spec}": import ${pkg} through its index only`);
      if (isTest && (owner.rule.may.includes(pkg) || TEST_KIT.includes(pkg))) continue;
      if (!owner.rule.may.includes(pkg)) {
        const direction = target.layer >= owner.rule.layer ? "upward" : "unlisted";
        report(
          `${direction} import of ${pkg} (layer ${target.layer}) from ${owner.name} (layer ${owner.rule.layer})`,
        );
      }
    }
    if (!isEdge && !isTest) {
      const code = stripCommentsAndStrings(file.text);
      if (/\bprocess\s*[.[]/.test(code)) {
        report("uses the process global: only edge code may read the environment or the process");
      }
      for (const [pattern, what] of AMBIENT_TIME_AND_RANDOMNESS) {
        if (pattern.test(code))
          report(`uses ${what}: library code takes time from Clock and randomness from Random`);
      }
    }
  }
  return violations;
};

/** Checks that every package directory is in the table and every package is in the docs. */
export const checkCoverage = (
  table: LayerTable,
  packageDirs: ReadonlyArray<string>,
  architectureDoc: string,
): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = [];
  const dirs = new Set(Object.values(table.packages).map((rule) => rule.dir));
  for (const dir of packageDirs) {
    if (!dirs.has(dir))
      violations.push({ file: dir, message: `package directory ${dir} is not in layers.json` });
  }
  for (const name of Object.keys(table.packages)) {
    if (!architectureDoc.includes(`\`${name}\``)) {
      violations.push({ file: "docs/architecture.md", message: `package ${name} is not described` });
    }
  }
  return violations;
};
