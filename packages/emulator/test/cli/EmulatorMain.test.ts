// Covers the kopf-emulator program as a process: --help (exit 0), a usage error (exit 2 with a
// hint), and a full life cycle — CRD applied, kubeconfig written, an object created, SIGTERM saves
// the state, a restart with --state serves the same object again.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import { parse as parseYaml } from "yaml";
import { exampleCrd, repoRoot } from "../kubectl/support.ts";
import { call } from "../server/support.ts";

const main = resolve(import.meta.dirname, "../../src/cli/main.ts");

const start = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, ["--conditions=@kopf/source", main, ...args], { cwd: repoRoot });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
      return { child, output: () => output, exited };
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL")),
  );

const waitFor = (predicate: () => boolean) =>
  Effect.gen(function* () {
    while (!predicate()) yield* Effect.sleep("50 millis");
  }).pipe(Effect.timeout("30 seconds"));

const exitOf = (process: { readonly exited: Promise<number | null> }) => Effect.promise(() => process.exited);

/** A minimal server handle for `call` from a written kubeconfig. */
const serverFrom = (kubeconfig: string) => {
  const config = parseYaml(readFileSync(kubeconfig, "utf8"));
  const cluster = config.clusters[0].cluster;
  return {
    url: cluster.server as string,
    tls: true,
    caPem: Buffer.from(cluster["certificate-authority-data"], "base64").toString("utf8"),
  } as never;
};

const stop = (child: ChildProcess) => Effect.sync(() => child.kill("SIGTERM"));

describe("kopf-emulator (process)", () => {
  it.live("prints help and exits 0; exits 2 on a usage error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const help = yield* start(["--help"]);
        assert.strictEqual(yield* exitOf(help), 0);
        assert.include(help.output(), "--kubeconfig");
        const bad = yield* start(["--port", "nope"]);
        assert.strictEqual(yield* exitOf(bad), 2);
        assert.include(bad.output(), "kopf-emulator: --port must be an integer");
      }),
    ),
  );

  it.live("saves the state on SIGTERM and serves it again after a restart", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const work = mkdtempSync(join(tmpdir(), "kopf-emu-main-"));
        const state = join(work, "state.json");
        const kubeconfig = join(work, "kubeconfig");
        const first = yield* start(["--crd", exampleCrd, "--state", state, "--kubeconfig", kubeconfig]);
        // The log line comes after the kubeconfig is completely written (the file alone may
        // exist half-written) and after the CRD files are applied.
        yield* waitFor(() => first.output().includes("kubeconfig written"));
        assert.include(first.output(), "applied 1 object(s)");
        const created = yield* call(
          serverFrom(kubeconfig),
          "/apis/kopf.dev/v1/namespaces/default/kopfexamples",
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              apiVersion: "kopf.dev/v1",
              kind: "KopfExample",
              metadata: { name: "kept" },
              spec: { a: 1 },
            }),
          },
        );
        assert.strictEqual(created.status, 201);
        yield* stop(first.child);
        yield* exitOf(first);
        assert.include(first.output(), `saved the state to ${state}`);
        const saved = JSON.parse(readFileSync(state, "utf8"));
        assert.isTrue(saved.objects.some((o: { metadata: { name: string } }) => o.metadata.name === "kept"));

        const second = yield* start(["--state", state, "--kubeconfig", kubeconfig, "--insecure"]);
        yield* waitFor(() => second.output().includes("kubeconfig written"));
        assert.include(second.output(), `loaded the state from ${state}`);
        const config = parseYaml(readFileSync(kubeconfig, "utf8"));
        const again = yield* call(
          { url: config.clusters[0].cluster.server, tls: false } as never,
          "/apis/kopf.dev/v1/namespaces/default/kopfexamples/kept",
        );
        assert.strictEqual(again.status, 200);
        assert.deepStrictEqual(JSON.parse(again.body).spec, { a: 1 });
        yield* stop(second.child);
        yield* exitOf(second);
      }),
    ),
  );
});
