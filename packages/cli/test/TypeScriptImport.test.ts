/**
 * The importer of TypeScript handler files: which failures of Node.js's own type stripping are
 * retried through tsx, which TypeScript files an unresolved relative import may mean, and when
 * tsx is loaded (only on need, once) — with a recording fake of `import()`. The real loaders are
 * exercised by ModuleLoading.test.ts.
 */
import { describe, expect, it } from "vitest";
import { isModuleFile, makeImporter, retriesWithTsx, typeScriptCandidates } from "../src/TypeScriptImport.ts";

const failure = (code: string | undefined, message = "failed", kind: ErrorConstructor = Error) =>
  Object.assign(new kind(message), code === undefined ? {} : { code });

describe("retriesWithTsx", () => {
  it.each([
    ["an enum, a namespace, a parameter property", failure("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX"), true],
    ["TypeScript the stripper cannot parse", failure("ERR_INVALID_TYPESCRIPT_SYNTAX"), true],
    [".tsx", failure("ERR_UNKNOWN_FILE_EXTENSION"), true],
    ["TypeScript under node_modules", failure("ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING"), true],
    [
      "a decorator (V8's own syntax error)",
      failure(undefined, "Invalid or unexpected token", SyntaxError),
      true,
    ],
    ["a missing module", failure("ERR_MODULE_NOT_FOUND"), false],
    ["the file's own code throwing", failure(undefined, "boom"), false],
    ["a thrown non-error", "boom", false],
    ["a thrown null", null, false],
    ["a code of another kind", failure("ERR_REQUIRE_ESM"), false],
  ])("%s → %s", (_what, error, expected) => {
    expect(retriesWithTsx(error)).toBe(expected);
  });
});

describe("typeScriptCandidates", () => {
  it.each([
    ["./model.js", ["./model.ts"]],
    ["../lib/model.mjs", ["../lib/model.mts"]],
    ["./model.cjs", ["./model.cts"]],
    ["./model", ["./model.ts", "./model/index.ts"]],
    ["../lib", ["../lib.ts", "../lib/index.ts"]],
    ["./lib/", ["./lib/index.ts"]],
    [".", ["./index.ts"]],
    ["..", ["../index.ts"]],
    ["/abs/model.js", ["/abs/model.ts"]],
    ["file:///abs/model.js", ["file:///abs/model.ts"]],
    ["./model.json", []],
    ["./model.ts", []],
    ["./model.js?query", []],
    ["kopf", []],
    ["node:path", []],
    ["@scope/pkg/sub.js", []],
  ])("%s → %j", (specifier, expected) => {
    expect(typeScriptCandidates(specifier)).toEqual(expected);
  });
});

describe("isModuleFile", () => {
  // Directories with a package.json, and its `type` (undefined: none given).
  const packages: Record<string, string | undefined> = {
    "/esm": "module",
    "/esm/vendored": undefined,
    "/cjs": "commonjs",
    "/": undefined,
  };
  const packageType = (dir: string) => (dir in packages ? packages[dir] : null);
  it.each([
    ["/esm/handlers.ts", true],
    ["/esm/src/deep/handlers.ts", true],
    ["/esm/view.tsx", true],
    ["/esm/vendored/handlers.ts", false],
    ["/cjs/handlers.ts", false],
    ["/cjs/handlers.mts", true],
    ["/esm/handlers.cts", false],
    ["/elsewhere/handlers.ts", false],
    ["/esm/handlers.js", false],
  ])("%s → %s", (path, expected) => {
    expect(isModuleFile(path, packageType)).toBe(expected);
  });

  it("stops at the filesystem's root when no package.json says anything", () => {
    const seen: string[] = [];
    const nothing = (dir: string) => {
      seen.push(dir);
      return null;
    };
    expect(isModuleFile("/a/b/c.ts", nothing)).toBe(false);
    expect(seen).toEqual(["/a/b", "/a", "/"]);
  });
});

/** An importer over a fake `import()` that fails natively as `nativeFailure` says. */
const harness = (options: {
  native?: boolean;
  tsxOnly?: boolean;
  nativeFailure?: (spec: string) => unknown;
  commonJs?: boolean;
}) => {
  const log: string[] = [];
  let tsxLoaded = false;
  const importer = makeImporter({
    native: options.native ?? true,
    tsxOnly: options.tsxOnly ?? false,
    isModule: () => !(options.commonJs ?? false),
    loadTsx: async () => {
      log.push("load tsx");
      tsxLoaded = true;
    },
    load: async (specifier) => {
      const failing = tsxLoaded ? undefined : options.nativeFailure?.(specifier);
      log.push(`${tsxLoaded ? "tsx" : "plain"} ${specifier}${failing === undefined ? "" : " (failed)"}`);
      if (failing !== undefined) throw failing;
      return { specifier };
    },
  });
  return { importer, log };
};

describe("makeImporter", () => {
  it("imports JavaScript and strippable TypeScript without tsx", async () => {
    const { importer, log } = harness({});
    await importer("file:///op/a.mjs");
    await importer("file:///op/b.ts");
    await importer("file:///op/c.js");
    expect(log).toEqual(["plain file:///op/a.mjs", "plain file:///op/b.ts", "plain file:///op/c.js"]);
  });

  it("retries through tsx what stripping cannot load, and loads TypeScript through tsx from then on", async () => {
    const { importer, log } = harness({
      nativeFailure: (spec) =>
        spec.endsWith("enum.ts") ? failure("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX") : undefined,
    });
    await importer("file:///op/enum.ts");
    await importer("file:///op/other.ts");
    await importer("file:///op/plain.mjs");
    expect(log).toEqual([
      "plain file:///op/enum.ts (failed)",
      "load tsx",
      "tsx file:///op/enum.ts",
      "tsx file:///op/other.ts",
      "tsx file:///op/plain.mjs",
    ]);
  });

  it("does not retry a failure of the file's own code, nor load tsx for it", async () => {
    const boom = failure(undefined, "top-level code threw");
    const { importer, log } = harness({ nativeFailure: () => boom });
    await expect(importer("file:///op/a.ts")).rejects.toBe(boom);
    expect(log).toEqual(["plain file:///op/a.ts (failed)"]);
  });

  it("adds a hint about tsconfig aliases to a missing package named by a TypeScript file", async () => {
    const missing = failure(
      "ERR_MODULE_NOT_FOUND",
      "Cannot find package '@app/model' imported from /op/a.ts",
    );
    const { importer } = harness({ nativeFailure: () => missing });
    const error = await importer("file:///op/a.ts").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("Cannot find package '@app/model'");
    expect((error as Error).message).toContain("KOPF_TYPESCRIPT=tsx");
    expect((error as Error & { code: string }).code).toBe("ERR_MODULE_NOT_FOUND");
    expect((error as Error).cause).toBe(missing);
    const file = failure("ERR_MODULE_NOT_FOUND", "Cannot find module '/op/gone.js' imported from /op/a.ts");
    const plain = harness({ nativeFailure: () => file });
    await expect(plain.importer("file:///op/a.ts")).rejects.toBe(file);
  });

  it("uses tsx from the start for CommonJS TypeScript, when Node.js does not strip types, or when asked to", async () => {
    for (const options of [{ native: false }, { tsxOnly: true }, { commonJs: true }]) {
      const { importer, log } = harness(options);
      await importer("file:///op/a.mjs");
      await importer("file:///op/b.ts");
      await importer("file:///op/c.mts");
      expect(log).toEqual([
        "plain file:///op/a.mjs",
        "load tsx",
        "tsx file:///op/b.ts",
        "tsx file:///op/c.mts",
      ]);
    }
  });
});
