// The layering checker catches what layers.json forbids: upward and unlisted imports, Node
// built-ins and the process global outside edge code, deep and escaping imports, and tables or
// directories that disagree with each other.
import { describe, expect, it } from "vitest";
import { checkCoverage, checkFiles, checkTable, importsOf, type LayerTable } from "../layers/checkLayers.ts";

const table: LayerTable = {
  packages: {
    "@kopf/low": { dir: "packages/low", layer: 0, kind: "pure", may: [] },
    "@kopf/mid": { dir: "packages/mid", layer: 1, kind: "pure", may: ["@kopf/low"] },
    "@kopf/side": { dir: "packages/side", layer: 1, kind: "pure", may: ["@kopf/low"] },
    "@kopf/edge": {
      dir: "packages/edge",
      layer: 5,
      kind: "service",
      may: ["@kopf/low", "@kopf/mid"],
      edgeModules: ["src/node/"],
    },
    "@kopf/emulator": { dir: "packages/emulator", layer: 6, kind: "edge", may: ["@kopf/low"] },
    "@kopf/testing": {
      dir: "packages/testing",
      layer: 7,
      kind: "edge",
      may: ["@kopf/low", "@kopf/mid", "@kopf/emulator"],
    },
  },
};

const check = (path: string, text: string) => checkFiles(table, [{ path, text }]).map((v) => v.message);

describe("importsOf", () => {
  it.each([
    [`import { a } from "x";`, ["x"]],
    [`import type { a } from "x";`, ["x"]],
    [`import * as X from "@s/x";`, ["@s/x"]],
    [`export * from "./y.ts";`, ["./y.ts"]],
    [`export { z } from "z";`, ["z"]],
    [`import "side-effect";`, ["side-effect"]],
    [`const m = await import("dyn");`, ["dyn"]],
    [`// import { a } from "commented";\n/* import "also" */`, []],
    [`import {\n  a,\n  b,\n} from "multi";`, ["multi"]],
  ])("%s", (text, expected) => {
    expect(importsOf(text)).toEqual(expected);
  });
});

describe("checkFiles", () => {
  it("accepts a listed downward import", () => {
    expect(check("packages/mid/src/A.ts", `import * as L from "@kopf/low";`)).toEqual([]);
  });

  it("rejects an upward import", () => {
    expect(check("packages/low/src/A.ts", `import { x } from "@kopf/mid";`)).toEqual([
      "upward import of @kopf/mid (layer 1) from @kopf/low (layer 0)",
    ]);
  });

  it("rejects a same-layer import that is not listed", () => {
    expect(check("packages/mid/src/A.ts", `import { x } from "@kopf/side";`)).toEqual([
      "upward import of @kopf/side (layer 1) from @kopf/mid (layer 1)",
    ]);
  });

  it("rejects an unlisted lower import", () => {
    const t: LayerTable = {
      packages: { ...table.packages, "@kopf/mid": { dir: "packages/mid", layer: 1, kind: "pure", may: [] } },
    };
    expect(checkFiles(t, [{ path: "packages/mid/src/A.ts", text: `import "@kopf/low";` }])).toHaveLength(1);
  });

  it("rejects an unknown workspace package", () => {
    expect(check("packages/mid/src/A.ts", `import "@kopf/ghost";`)).toEqual([
      'imports "@kopf/ghost": @kopf/ghost is not in layers.json',
    ]);
  });

  it("rejects Node built-ins outside edge code", () => {
    expect(check("packages/mid/src/A.ts", `import { readFileSync } from "node:fs";`)).toHaveLength(1);
    expect(check("packages/mid/src/A.ts", `import * as fs from "fs";`)).toHaveLength(1);
    expect(
      check("packages/mid/src/A.ts", `import { NodeRuntime } from "@effect/platform-node";`),
    ).toHaveLength(1);
  });

  it("allows Node built-ins in edge packages, edge modules and tests", () => {
    expect(check("packages/testing/src/Server.ts", `import * as http from "node:http";`)).toEqual([]);
    expect(check("packages/edge/src/node/Live.ts", `import * as http from "node:http";`)).toEqual([]);
    expect(check("packages/edge/src/Api.ts", `import * as http from "node:http";`)).toHaveLength(1);
    expect(check("packages/mid/test/A.test.ts", `import * as fs from "node:fs";`)).toEqual([]);
    expect(check("packages/mid/bench/A.bench.ts", `import * as fs from "node:fs"; process.exit(0);`)).toEqual(
      [],
    );
  });

  it("rejects the process global outside edge code, but not the word in strings or comments", () => {
    expect(check("packages/mid/src/A.ts", `const home = process.env.HOME;`)).toHaveLength(1);
    expect(check("packages/mid/src/A.ts", `const x = process["env"];`)).toHaveLength(1);
    expect(
      check("packages/mid/src/A.ts", `// process.env is read elsewhere\nconst s = "process.exit";`),
    ).toEqual([]);
    expect(check("packages/testing/src/A.ts", `process.exit(1);`)).toEqual([]);
  });

  it.each([
    ["const t = Date.now();", "Date.now()"],
    ["const d = new Date();", "new Date() without arguments"],
    ["setTimeout(() => {}, 10);", "setTimeout"],
    ["setInterval(tick, 10);", "setInterval"],
    ["const r = Math.random();", "Math.random()"],
    ["const t = performance.now();", "performance.now()"],
  ])("rejects ambient time and randomness in library code: %s", (text, what) => {
    expect(check("packages/mid/src/A.ts", text)).toEqual([
      `uses ${what}: library code takes time from Clock and randomness from Random`,
    ]);
    expect(check("packages/testing/src/A.ts", text)).toEqual([]);
    expect(check("packages/mid/test/A.test.ts", text)).toEqual([]);
  });

  it("accepts dates built from values and the words in comments or strings", () => {
    expect(
      check(
        "packages/mid/src/A.ts",
        `const d = new Date(micros / 1000); // not Date.now()\nconst s = "setTimeout";`,
      ),
    ).toEqual([]);
  });

  it("rejects deep imports and relative imports that leave the package", () => {
    expect(check("packages/mid/src/A.ts", `import "@kopf/low/src/internal/x.ts";`)).toEqual([
      'deep import "@kopf/low/src/internal/x.ts": import @kopf/low through its index only',
    ]);
    expect(check("packages/mid/src/A.ts", `import "../../low/src/B.ts";`)).toEqual([
      'relative import "../../low/src/B.ts" leaves the package @kopf/mid',
    ]);
    expect(check("packages/mid/src/sub/A.ts", `import "../B.ts";`)).toEqual([]);
  });

  it("lets tests use the testing kit but not upward packages", () => {
    expect(check("packages/mid/test/A.test.ts", `import "@kopf/testing";`)).toEqual([]);
    expect(check("packages/mid/test/A.test.ts", `import "@kopf/emulator";`)).toEqual([]);
    expect(check("packages/mid/src/A.ts", `import "@kopf/emulator";`)).toHaveLength(1);
    expect(check("packages/low/test/A.test.ts", `import "@kopf/edge";`)).toHaveLength(1);
  });
});

describe("checkTable", () => {
  it("accepts a well-formed table", () => {
    expect(checkTable(table)).toEqual([]);
  });

  it("rejects a table that lists an upward or unknown dependency", () => {
    const bad: LayerTable = {
      packages: {
        "@kopf/low": { dir: "packages/low", layer: 0, kind: "pure", may: ["@kopf/mid", "@kopf/nope"] },
        "@kopf/mid": { dir: "packages/mid", layer: 1, kind: "pure", may: [] },
      },
    };
    expect(checkTable(bad).map((v) => v.message)).toEqual([
      "@kopf/low (layer 0) lists @kopf/mid (layer 1): not a lower layer",
      "@kopf/low may import unknown package @kopf/nope",
    ]);
  });
});

describe("checkCoverage", () => {
  const doc = "`@kopf/low` `@kopf/mid` `@kopf/side` `@kopf/edge` `@kopf/emulator` `@kopf/testing`";

  it("accepts matching directories and docs", () => {
    expect(checkCoverage(table, ["packages/low", "packages/mid"], doc)).toEqual([]);
  });

  it("rejects a package directory missing from the table", () => {
    expect(checkCoverage(table, ["packages/rogue"], doc).map((v) => v.message)).toEqual([
      "package directory packages/rogue is not in layers.json",
    ]);
  });

  it("rejects a package missing from the architecture document", () => {
    expect(checkCoverage(table, [], "`@kopf/low`")).toHaveLength(5);
  });
});
