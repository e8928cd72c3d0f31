/**
 * `kopf crd` and `kopf types`: the CRDs of the resources a handler file declares, as YAML (equal
 * to the generated objects, the conversion webhook at the given URL); the TypeScript module of
 * a CRD file, which declares a resource whose CRD is the same again (the round trip); clear
 * errors (exit 1) for files without resources and files without CRDs.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, describe, it } from "@effect/vitest";
import { Crd } from "@kopf/resources";
import * as Result from "effect/Result";
import * as kopf from "kopf";
import { parseAllDocuments } from "yaml";
import { evaluate } from "./fixtures/generatedModule.ts";
import { invoke as invokeIn } from "./support/invoke.ts";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const examples = join(fixtures, "../../../../examples");

/** The Widget resource of the fixture (imported once, for the expected CRDs). */
const widget = async (): Promise<kopf.Registry.DeclaredResource> =>
  ((await import("./fixtures/typed.ts")) as { Widget: kopf.Registry.DeclaredResource }).Widget;

const invoke = (argv: ReadonlyArray<string>) => invokeIn(argv, fixtures);

const documents = (yaml: string): Array<unknown> =>
  parseAllDocuments(yaml).map((d) => ("toJS" in d ? d.toJS() : undefined));

describe("kopf crd", () => {
  it("prints the CRDs of the declared resources as YAML", async () => {
    const result = await invoke([
      "crd",
      "typed.ts",
      "--conversion-url",
      "https://10.0.0.9:9443/convert/{group}/{plural}",
      "--ca-bundle",
      "Q0E=",
    ]);
    assert.strictEqual(result.stderr, "");
    assert.strictEqual(result.exitCode, 0);
    const expected = Result.getOrThrow(
      Crd.fromResource(await widget(), {
        conversionClientConfig: { url: "https://10.0.0.9:9443/convert/kopf.dev/widgets", caBundle: "Q0E=" },
      }),
    );
    assert.deepStrictEqual(documents(result.stdout), [JSON.parse(JSON.stringify(expected))]);
  });

  it("fails clearly when the files declare no resources", async () => {
    const result = await invoke(["crd", "handlers.ts"]);
    assert.strictEqual(result.exitCode, 1);
    assert.include(result.stderr, "declares no resources");
  });
});

describe("kopf types", () => {
  it("round trip: the module of a generated CRD declares a resource with the same CRD", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kopf-types-"));
    const crd = JSON.parse(JSON.stringify(Result.getOrThrow(Crd.fromResource(await widget()))));
    await writeFile(join(dir, "crd.yaml"), (await invoke(["crd", "typed.ts"])).stdout);
    const result = await invoke(["types", join(dir, "crd.yaml"), "-o", join(dir, "widget.ts")]);
    assert.strictEqual(result.exitCode, 0, result.stderr);
    const module = await readFile(join(dir, "widget.ts"), "utf8");
    const previous = kopf.getDefaultRegistry();
    try {
      kopf.setDefaultRegistry(kopf.Registry.make());
      const again = Result.getOrThrow(Crd.fromResource(evaluate(module, "Widget")));
      assert.deepStrictEqual(JSON.parse(JSON.stringify(again)), {
        ...crd,
        spec: { ...crd.spec, conversion: { strategy: "None" } },
      });
    } finally {
      kopf.setDefaultRegistry(previous);
    }
  });

  it("the examples' CRD: the committed (formatted, type-checked) module is what kopf types writes", async () => {
    const result = await invoke(["types", join(examples, "crd.yaml")]);
    assert.strictEqual(result.exitCode, 0, result.stderr);
    // The committed module is formatted by biome: compare without layout (spaces, commas, comments).
    const bare = (text: string) => text.replace(/^\/\/.*$/gm, "").replace(/[\s,]/g, "");
    assert.strictEqual(
      bare(result.stdout),
      bare(await readFile(join(fixtures, "kopfexample.generated.ts"), "utf8")),
    );
  });

  it.each([
    [["types", join(examples, "obj.yaml")], "document 1: not a CustomResourceDefinition"],
    [["types", "missing.yaml"], "Cannot read"],
  ])("fails clearly: %s", async (argv, message) => {
    const result = await invoke(argv);
    assert.strictEqual(result.exitCode, 1);
    assert.include(result.stderr, message);
  });
});
