/**
 * The `kopf` executable as a process (bin/kopf.js → src/main.ts) against the emulator over HTTPS:
 * it loads a TypeScript handler file and handles objects; SIGTERM and SIGINT stop it gracefully
 * with exit code 0; a second signal during a slow graceful stop exits at once with a non-zero
 * code; a line logged just before `process.exit` is written; a missing handler file exits 1 with
 * a message naming it. `kopf run` replaces itself once with `--no-concurrent-recompilation` (the
 * same process: the signal tests above stop the replaced one), not with `KOPF_HEAP_TUNING=off`;
 * and keeps TurboFan off while it has used little CPU, again not with `KOPF_HEAP_TUNING=off`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Clusters, KopfRunner } from "@kopf/testing";
import * as kopf from "kopf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as DeferredOptimization from "../src/DeferredOptimization.ts";
import { httpsCluster } from "./support/httpsCluster.ts";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "../bin/kopf.js");

let cluster: Clusters.Built;
let kubeconfig: string;
let dir: string;

beforeAll(async () => {
  ({ cluster, kubeconfig, dir } = await httpsCluster("kopf-main-"));
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

const launch = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfig, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const waitFor = async (text: string, timeout = 30_000) => {
    const deadline = Date.now() + timeout;
    while (!output.includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${JSON.stringify(text)} in:\n${output}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  };
  return { child, exited, waitFor, output: () => output };
};

const handlerFile = (name: string, body: string) => {
  const path = join(dir, name);
  writeFileSync(path, `import * as kopf from "kopf";\n${body}\n`);
  return path;
};

describe("the kopf process", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "handles objects and stops gracefully on %s with exit code 0",
    async (signal) => {
      const name = `by-process-${signal.toLowerCase()}`;
      const handlers = handlerFile(
        `${name}.ts`,
        `kopf.on.create("kopfexamples", function create_fn({ name }) { return { seen: name }; });`,
      );
      const process_ = launch(["run", "-n", name, "--standalone", handlers]);
      const runner = await KopfRunner.start({
        registry: kopf.Registry.make(),
        namespaces: ["none"],
        cluster,
      });
      await runner.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
      await runner.apply({
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        metadata: { name, namespace: name },
      });
      const body = await runner.waitFor(
        KopfRunner.kopfExamples,
        name,
        name,
        (b) => b?.status?.create_fn !== undefined,
        {
          timeout: 30_000,
        },
      );
      await runner.stop();
      expect(body?.status?.create_fn).toEqual({ seen: name });
      process_.child.kill(signal);
      expect(await process_.exited).toBe(0);
      expect(process_.output()).toContain(`Signal ${signal} is received. Operator is stopping.`);
    },
  );

  it("exits at once on a second signal during a slow graceful stop", async () => {
    const handlers = handlerFile(
      "slow-cleanup.ts",
      `kopf.on.cleanup(async function slow() { await new Promise((done) => setTimeout(done, 60_000)); });`,
    );
    const process_ = launch(["run", "-n", "slow", "--standalone", "--verbose", handlers]);
    await process_.waitFor("Initial authentication has finished.", 20_000); // startup done, watching
    const started = Date.now();
    process_.child.kill("SIGTERM");
    await process_.waitFor("Signal SIGTERM is received. Operator is stopping.");
    process_.child.kill("SIGTERM");
    const code = await process_.exited;
    expect(code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(process_.output()).toContain("Signal SIGTERM is received again. Operator is exiting now.");
  });

  it("writes the lines logged just before process.exit (pending log lines are written at exit)", async () => {
    const handlers = handlerFile(
      "last-words.ts",
      `kopf.on.startup(function last_words({ logger }) { logger.info("last words"); process.exit(3); });`,
    );
    const process_ = launch(["run", "-n", "last-words", "--standalone", handlers]);
    expect(await process_.exited).toBe(3);
    expect(process_.output()).toContain("last words");
  });

  it("exits 1 naming a missing handler file", async () => {
    const process_ = launch(["run", "-A", join(dir, "missing.ts")]);
    expect(await process_.exited).toBe(1);
    expect(process_.output()).toContain("Handler file not found:");
  });

  describe("its restart with a flag only a process start can set", () => {
    const startup = () =>
      handlerFile(
        "started-with.ts",
        `kopf.on.startup(function started_with({ logger }) {
          logger.info("started with " + JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2) }));
          process.exit(0);
        });`,
      );
    const startedWith = async (env: Record<string, string>) => {
      const handlers = startup();
      const process_ = launch(["run", "-n", "started-with", "--standalone", handlers], env);
      expect(await process_.exited).toBe(0);
      const line = /started with (\{.*\})/.exec(process_.output())?.[1];
      expect(line, process_.output()).toBeDefined();
      return {
        child: process_.child.pid,
        handlers,
        ...(JSON.parse(line ?? "{}") as { pid: number; execArgv: string[]; argv: string[] }),
      };
    };

    it("runs as the same process, once, with the flag and the command line it was given", async () => {
      const seen = await startedWith({});
      expect(seen.pid).toBe(seen.child);
      expect(seen.argv).toEqual(["run", "-n", "started-with", "--standalone", seen.handlers]);
      const flags = seen.execArgv.filter((arg) => arg === "--no-concurrent-recompilation");
      // Where Node.js cannot replace a process (Windows), it runs on as started.
      expect(flags).toHaveLength(typeof process.execve === "function" ? 1 : 0);
    });

    it("is not restarted with KOPF_HEAP_TUNING=off", async () => {
      const seen = await startedWith({ KOPF_HEAP_TUNING: "off" });
      expect(seen.pid).toBe(seen.child);
      expect(seen.execArgv).not.toContain("--no-concurrent-recompilation");
    });
  });

  describe("its deferred TurboFan", () => {
    // A startup handler makes a function hot (the process has used far less than the deferral's
    // CPU then) and reports whether TurboFan compiled it, read with V8's natives syntax, which
    // is allowed for the code compiled after the flag is set.
    const tiered = async (env: Record<string, string>) => {
      const handlers = handlerFile(
        "tiered.ts",
        `import * as v8 from "node:v8";
        kopf.on.startup(async function tiered({ logger }) {
          v8.setFlagsFromString("--allow-natives-syntax");
          const status = new Function("f", "return %GetOptimizationStatus(f);") as (f: unknown) => number;
          const hot = (values: number[]) => { let total = 0; for (const value of values) total += value * 2; return { total }; };
          const values = Array.from({ length: 50 }, (_, i) => i);
          let sink = 0;
          for (let round = 0; round < 20; round++) {
            for (let i = 0; i < 10_000; i++) sink += hot(values).total;
            await new Promise((done) => setTimeout(done, 1));
          }
          logger.info("tiered " + JSON.stringify({ turbofan: (status(hot) & 64) !== 0, sink: sink > 0 }));
          process.exit(0);
        });`,
      );
      const process_ = launch(["run", "-n", "tiered", "--standalone", handlers], env);
      expect(await process_.exited).toBe(0);
      const line = /tiered (\{.*\})/.exec(process_.output())?.[1];
      expect(line, process_.output()).toBeDefined();
      return JSON.parse(line ?? "{}") as { turbofan: boolean };
    };

    it("keeps a hot function from TurboFan while the operator has used little CPU (V8 13 and later)", async () => {
      const deferred = DeferredOptimization.plan([], undefined, process.versions.v8) !== undefined;
      expect(await tiered({})).toEqual({ turbofan: !deferred, sink: true });
    });

    it("does not with KOPF_HEAP_TUNING=off", async () => {
      expect(await tiered({ KOPF_HEAP_TUNING: "off" })).toEqual({ turbofan: true, sink: true });
    });
  });
});
