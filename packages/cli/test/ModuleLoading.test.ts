/**
 * What the `kopf` process loads: `kopf run` against a cluster loads no module of the emulator or
 * of the testing kit (a production operator carries no test code), nor, with default options,
 * the heavy libraries of features it does not use (metrics, tracing, webhook certificates, the
 * Kubernetes client libraries the kubeconfig is no longer read with), while `kopf run --emulator`
 * does load them, serves the embedded emulator with the given files applied, and handles the
 * object they create. The installed form (the bundle `scripts/bundle-cli.ts` makes, built here
 * into a temporary directory) loads nothing but its own files and the handler file: the
 * handlers' `import "kopf"` gets the bundle's facade (one registry, the one served), not Node's
 * own fetch implementation, nor Node's http2 or child_process, and tsx only for TypeScript that
 * Node.js's type stripping cannot load (an enum): a TypeScript handler file importing
 * `./naming.js` (the file `naming.ts`) loads without it. It makes no `Intl.Segmenter` (ICU's
 * text-boundary data) unless it renders help, and loads neither `assert` nor `util`'s lazy parts
 * (`worker_threads`, `parseArgs`). Every module the process loads is recorded by a
 * preloaded hook.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmulatorServer } from "@kopf/emulator";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import * as kopf from "kopf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "../bin/kopf.js");
const recorder = join(here, "fixtures/record-modules.mjs");
const examples = join(here, "../../../examples");
const root = join(here, "../../..");

const TEST_CODE = /\/packages\/(testing|emulator)\/|\/node_modules\/@kopf\/(testing|emulator)\//;

/** Libraries only some features need; `kopf run` with default options loads none of them. */
const HEAVY = [
  "prom-client", // the metrics endpoint (--metrics)
  "@opentelemetry/", // tracing (OTEL_* environment), also pulled in by prom-client
  "@effect/opentelemetry",
  "node-forge", // self-signed certificates of webhook servers
  "@kubernetes/client-node",
  "kubernetes-fluent-client",
  "quicktype-core",
  "undici/", // connections through a proxy (a proxy URL, or trust in the proxy environment)
];
const heavy = (url: string) => HEAVY.some((name) => url.includes(`/node_modules/${name}`));

let dir: string;
let handlers: string;
let jsHandlers: string;
let enumHandlers: string;
let bundle: string;
let cluster: Clusters.Built;
let kubeconfig: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kopf-modules-"));
  // A project as `npm create kopf` makes one: an ES-module package with kopf installed.
  writeFileSync(join(dir, "package.json"), `{ "type": "module" }\n`);
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(root, "packages/kopf"), join(dir, "node_modules/kopf"));
  handlers = join(dir, "handlers.ts");
  writeFileSync(
    handlers,
    `import * as kopf from "kopf";\nkopf.on.create("kopfexamples", function create_fn({ name }) { return { seen: name }; });\n`,
  );
  jsHandlers = join(dir, "handlers.mjs");
  writeFileSync(jsHandlers, readFileSync(handlers, "utf-8"));
  // TypeScript as projects compiled for Node.js write it: a `./x.js` import of the file `x.ts`.
  writeFileSync(join(dir, "naming.ts"), `export const seen = (name: string): string => name;\n`);
  writeFileSync(
    join(dir, "typed-handlers.ts"),
    `import * as kopf from "kopf";\nimport { seen } from "./naming.js";\nkopf.on.create("kopfexamples", function create_fn({ name }: { name: string }) { return { seen: seen(name) }; });\n`,
  );
  // An enum: TypeScript that Node.js's stripping cannot load, tsx can.
  writeFileSync(join(dir, "levels.ts"), `export enum Level { Seen = "seen" }\n`);
  enumHandlers = join(dir, "enum-handlers.ts");
  writeFileSync(
    enumHandlers,
    `import * as kopf from "kopf";\nimport { Level } from "./levels.ts";\nkopf.on.create("kopfexamples", function create_fn({ name }) { return { [Level.Seen]: name }; });\n`,
  );
  // Inside packages/cli, so that what the bundle leaves out resolves from its node_modules.
  bundle = mkdtempSync(join(here, "../dist/test-bundle-"));
  execFileSync(process.execPath, [join(root, "scripts/bundle-cli.ts"), bundle], { stdio: "pipe" });
  const scope = Scope.makeUnsafe();
  const context = await Effect.runPromise(Layer.buildWithScope(Clusters.https(), scope));
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void));
  cluster = { context, close, [Symbol.asyncDispose]: close };
  kubeconfig = join(dir, "kubeconfig");
  await Effect.runPromise(Context.get(context, EmulatorServer).writeKubeconfig(kubeconfig));
  const setup = await KopfRunner.start({ registry: kopf.Registry.make(), namespaces: ["none"], cluster });
  await setup.apply(join(examples, "crd.yaml"));
  await setup.apply(join(examples, "obj.yaml"));
  // One object per namespace for the runs of the bundle (an object is handled once).
  for (const namespace of ["bundle-js", "bundle-ts", "bundle-tsx"]) {
    const object = join(dir, `${namespace}.yaml`);
    const namespaceDoc = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n---\n`;
    const example = readFileSync(join(examples, "obj.yaml"), "utf-8").replace(
      "  name: kopf-example-1\n",
      `  name: kopf-example-1\n  namespace: ${namespace}\n`,
    );
    writeFileSync(object, namespaceDoc + example);
    await setup.apply(object);
  }
  await setup.stop();
}, 90_000);

afterAll(async () => {
  await cluster?.close();
  if (bundle !== undefined) rmSync(bundle, { recursive: true, force: true });
});

const launch = (
  args: ReadonlyArray<string>,
  record: string,
  env: Record<string, string> = {},
  entry: string = bin,
) => {
  const child: ChildProcess = spawn(process.execPath, ["--import", recorder, entry, ...args], {
    cwd: dir,
    env: { ...process.env, ...env, KOPF_RECORD_MODULES: record },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const waitFor = async (text: string, timeout = 60_000) => {
    const deadline = Date.now() + timeout;
    while (!output.includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${JSON.stringify(text)} in:\n${output}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  };
  const loaded = () =>
    readFileSync(record, "utf-8")
      .split("\n")
      .filter((line) => line !== "");
  return { child, exited, waitFor, loaded };
};

describe("kopf run", () => {
  it("loads no emulator or testing module", async () => {
    const run = launch(["run", "-n", "default", "--standalone", handlers], join(dir, "run.txt"), {
      KUBECONFIG: kubeconfig,
    });
    await run.waitFor("[default/kopf-example-1] Handler 'create_fn' succeeded.");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    const loaded = run.loaded();
    expect(loaded.filter((url) => url.includes("/packages/runtime/")).length).toBeGreaterThan(10);
    expect(loaded.filter((url) => TEST_CODE.test(url))).toEqual([]);
    expect(loaded.filter(heavy)).toEqual([]);
  }, 90_000);

  it("with --emulator serves the embedded emulator with the files applied and handles their object", async () => {
    const run = launch(
      [
        "run",
        handlers,
        "-n",
        "default",
        "--standalone",
        "--emulator",
        join(examples, "crd.yaml"),
        "--emulator",
        join(examples, "obj.yaml"),
      ],
      join(dir, "embedded.txt"),
    );
    await run.waitFor("[default/kopf-example-1] Handler 'create_fn' succeeded.");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    const written = readFileSync(join(dir, ".kopf/kubeconfig"), "utf-8");
    expect(written).toContain("https://127.0.0.1:");
    // The recorder sees the emulator's modules when they are loaded: the check above can fail.
    expect(run.loaded().filter((url) => TEST_CODE.test(url)).length).toBeGreaterThan(10);
    // The emulator makes its certificates with node-forge: the heavy-module check can fail too.
    expect(run.loaded().filter(heavy).length).toBeGreaterThan(0);
  }, 90_000);
});

describe("kopf run, installed (bundled)", () => {
  const files = (loaded: ReadonlyArray<string>) => loaded.filter((url) => url.startsWith("file:"));
  const outside = (loaded: ReadonlyArray<string>, ...allowed: ReadonlyArray<string>) =>
    files(loaded).filter((url) => !url.startsWith(`file://${bundle}/`) && !allowed.includes(url));

  /** Runs the bundle on one namespace until its object is handled; the modules it loaded. */
  const runBundle = async (file: string, namespace: string) => {
    const run = launch(
      ["run", "-n", namespace, "--standalone", file],
      join(dir, `${namespace}.txt`),
      { KUBECONFIG: kubeconfig, NODE_COMPILE_CACHE: join(dir, "compile-cache") },
      join(bundle, "main.js"),
    );
    // Handled: the file's `kopf.on.create` registered into the registry the operator serves.
    await run.waitFor(`[${namespace}/kopf-example-1] Handler 'create_fn' succeeded.`);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    return run.loaded();
  };

  it("loads only the bundle and the handler file, whose kopf is the bundle's", async () => {
    const loaded = await runBundle(jsHandlers, "bundle-js");
    expect(outside(loaded, `file://${jsHandlers}`)).toEqual([]);
    expect(loaded).toContain(`file://${bundle}/kopf.js`);
    expect(loaded.filter((url) => url.includes("/tsx/"))).toEqual([]);
    expect(loaded.filter(heavy)).toEqual([]);
    // Nor Node's own fetch implementation (~80 ms, ~16 MiB), which an ES import of node:http or
    // a read of globalThis.Headers loads.
    expect(loaded.filter((name) => name.startsWith("node-internal:")).length).toBeGreaterThan(50);
    expect(loaded.filter((name) => name.includes("internal/deps/undici"))).toEqual([]);
    // Nor Node's http2 (the bundle's undici speaks HTTP/1.1 only, as the transport asks) or
    // child_process (loaded for a kubeconfig's exec plugin or a webhook tunnel, when used).
    expect(loaded.filter((name) => /^node-internal:NativeModule (http2|child_process)$/.test(name))).toEqual(
      [],
    );
    // Nor what ES imports of `util` and `assert` in yargs and its helpers used to load (`util`'s
    // lazy parts such as parseArgs and the worker threads, and `assert`): the bundle's copies take
    // what they use without building those modules' namespaces.
    expect(
      loaded.filter((name) =>
        /^node-internal:NativeModule (assert|worker_threads|internal\/util\/parse_args\/parse_args)$/.test(
          name,
        ),
      ),
    ).toEqual([]);
    // Nor ICU's text-boundary data (~2.5 MiB), which yargs' string-width used to load at start
    // by making its Intl.Segmenter; it makes it for help text only (see the help test below).
    expect(loaded.filter((name) => name.startsWith("intl:"))).toEqual([]);
  }, 90_000);

  const tsxOf = (loaded: ReadonlyArray<string>) =>
    files(loaded).filter((url) => url.includes("/tsx/") || url.includes("/esbuild/"));

  it("strips a TypeScript handler file's types with Node.js's own stripping, its ./x.js import resolved to x.ts, without tsx", async () => {
    const typed = join(dir, "typed-handlers.ts");
    const loaded = await runBundle(typed, "bundle-ts");
    expect(tsxOf(loaded)).toEqual([]);
    expect(outside(loaded, `file://${typed}`, `file://${join(dir, "naming.ts")}`)).toEqual([]);
  }, 90_000);

  it("loads tsx for TypeScript that Node.js cannot strip, and the handler file gets the bundle's kopf too", async () => {
    const loaded = await runBundle(enumHandlers, "bundle-tsx");
    const tsx = tsxOf(loaded);
    // The check above can fail: tsx is recorded when it is loaded.
    expect(tsx.length).toBeGreaterThan(0);
    expect(outside(loaded, `file://${enumHandlers}`, `file://${join(dir, "levels.ts")}`, ...tsx)).toEqual([]);
  }, 90_000);

  it("reports a usage error with its hint to --help, and prints help when asked (its yargs renders help only then)", async () => {
    const run = launch(["run", "--bogus", jsHandlers], join(dir, "usage.txt"), {}, join(bundle, "main.js"));
    await run.waitFor("Try 'kopf --help' for help.");
    expect(await run.exited).toBe(2);
    const help = launch(["run", "--help"], join(dir, "help.txt"), {}, join(bundle, "main.js"));
    await help.waitFor("Start an operator process and handle all the custom objects.");
    expect(await help.exited).toBe(0);
    // The help text's columns are measured with the Intl.Segmenter the bundle makes only now.
    expect(help.loaded()).toContain("intl:Segmenter");
  }, 30_000);
});
