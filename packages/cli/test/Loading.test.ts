/**
 * Loading handler files and modules: files register into the default registry in order; a missing
 * file, a directory, a throwing file, a file with a syntax error and an unknown module each give a
 * LoadError naming the target and the reason.
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, beforeEach, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as kopf from "kopf";
import * as Loading from "../src/Loading.ts";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

const failureOf = async (options: Loading.LoadOptions) => {
  const exit = await Effect.runPromiseExit(Loading.load(options));
  if (Exit.isSuccess(exit)) assert.fail("expected a failure");
  const error = exit.cause.reasons[0];
  assert.strictEqual(error?._tag, "Fail");
  return (error as unknown as { error: Loading.LoadError }).error;
};

beforeEach(() => {
  kopf.setDefaultRegistry(kopf.Registry.make());
});

describe("Loading.load", () => {
  it("imports handler files relative to the cwd, registering their handlers", async () => {
    await Effect.runPromise(Loading.load({ paths: ["handlers.ts"], modules: [], cwd: fixtures }));
    assert.deepStrictEqual(
      kopf.getDefaultRegistry().changing.map((h) => h.id),
      ["createFn"],
    );
  });

  it("imports files in the given order through the importer", async () => {
    const seen: Array<string> = [];
    const importer = async (specifier: string) => {
      seen.push(specifier.slice(specifier.lastIndexOf("/") + 1));
    };
    await Effect.runPromise(
      Loading.load({ paths: ["handlers.ts", "throwing.ts"], modules: [], cwd: fixtures, importer }),
    );
    assert.deepStrictEqual(seen, ["handlers.ts", "throwing.ts"]);
  });

  it("names a missing file", async () => {
    const error = await failureOf({ paths: ["nope.ts"], modules: [], cwd: fixtures });
    assert.strictEqual(error.reason, "FileNotFound");
    assert.include(error.message, "Handler file not found: nope.ts");
  });

  it("refuses a directory", async () => {
    const error = await failureOf({ paths: ["."], modules: [], cwd: fixtures });
    assert.strictEqual(error.reason, "NotAFile");
  });

  it("reports what a throwing file threw", async () => {
    const error = await failureOf({ paths: ["throwing.ts"], modules: [], cwd: fixtures });
    assert.strictEqual(error.reason, "ImportFailed");
    assert.include(
      error.message,
      "Failed to load throwing.ts: RangeError: the handler file is broken on purpose",
    );
  });

  it("reports a syntax error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kopf-load-"));
    copyFileSync(join(fixtures, "syntax.ts.txt"), join(dir, "syntax.ts"));
    const error = await failureOf({ paths: ["syntax.ts"], modules: [], cwd: dir });
    assert.strictEqual(error.reason, "ImportFailed");
    assert.include(error.message, "Failed to load syntax.ts");
  });

  it("names a module that cannot be found", async () => {
    const error = await failureOf({ paths: [], modules: ["no-such-module-kopf-test"], cwd: fixtures });
    assert.strictEqual(error.reason, "ModuleNotFound");
    assert.include(error.message, "Module not found: no-such-module-kopf-test");
  });

  it("imports modules by name", async () => {
    const seen: Array<string> = [];
    await Effect.runPromise(
      Loading.load({
        paths: [],
        modules: ["yargs"],
        cwd: fixtures,
        importer: async (s) => void seen.push(s),
      }),
    );
    assert.strictEqual(seen.length, 1);
    assert.include(seen[0], "yargs");
  });
});
