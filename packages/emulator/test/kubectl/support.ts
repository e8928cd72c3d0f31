// Test support for the evidence tests: the whole emulator (core + webhook admission + fault
// injector + HTTPS server) as one scoped value with a kubeconfig file, and a runner for the real
// `kubectl` (made available by scripts/ensure-kubectl.sh).
import { type ChildProcessWithoutNullStreams, execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as WebhookAdmission from "../../src/admission/WebhookAdmission.ts";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
import { EmulatorServer, type EmulatorServerOptions } from "../../src/server/EmulatorServer.ts";

/** The repository root (for examples/crd.yaml and scripts/). */
export const repoRoot = resolve(import.meta.dirname, "../../../..");
export const exampleCrd = join(repoRoot, "examples/crd.yaml");
export const exampleObject = join(repoRoot, "examples/obj.yaml");

/** Whether kubectl is (or could be made) available, and its path; the reason when it is not. */
export const kubectlAvailability = (():
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string } => {
  try {
    const out = execFileSync("bash", [join(repoRoot, "scripts/ensure-kubectl.sh")], {
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
    });
    const path = out.trim().split("\n").at(-1) ?? "kubectl";
    return { ok: true, path };
  } catch (error) {
    const reason = `scripts/ensure-kubectl.sh failed: ${String((error as { stderr?: unknown }).stderr ?? error)}`;
    console.error(`\n!!! SKIPPING kubectl evidence tests: ${reason}\n`);
    return { ok: false, reason };
  }
})();

/** The kubectl to run: the one scripts/ensure-kubectl.sh chose. */
const kubectlPath = kubectlAvailability.ok ? kubectlAvailability.path : "kubectl";

/** The full emulator stack over HTTPS (or HTTP). */
export const emulatorLayer = (options: EmulatorServerOptions = {}) =>
  EmulatorServer.layer(options).pipe(
    Layer.provideMerge(
      Layer.merge(KubeEmulator.layer().pipe(Layer.provide(WebhookAdmission.layer)), FaultInjector.layer),
    ),
  );

export interface Running {
  readonly server: EmulatorServer["Service"];
  readonly emulator: KubeEmulator["Service"];
  readonly kubeconfig: string;
}

/** Starts the stack for the current scope and writes its kubeconfig. */
export const startEmulator = (options: EmulatorServerOptions = {}) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(emulatorLayer(options));
    const server = Context.get(context, EmulatorServer);
    const emulator = Context.get(context, KubeEmulator);
    const kubeconfig = join(mkdtempSync(join(tmpdir(), "kopf-emu-")), "kubeconfig");
    yield* server.writeKubeconfig(kubeconfig);
    return { server, emulator, kubeconfig } satisfies Running;
  });

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl against the emulator; never fails (the exit code is in the result). */
export const kubectl = (running: Running, args: ReadonlyArray<string>, stdin?: string) =>
  Effect.callback<KubectlResult>((resume) => {
    const child = execFile(
      kubectlPath,
      ["--kubeconfig", running.kubeconfig, ...args],
      { timeout: 60_000, env: { ...process.env, KUBECONFIG: running.kubeconfig, HOME: tmpdir() } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resume(Effect.succeed({ code, stdout: String(stdout), stderr: String(stderr) }));
      },
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
    return Effect.sync(() => child.kill());
  });

/** Starts a long-running kubectl (e.g. `get --watch`), killed when the scope closes. */
export const kubectlBackground = (running: Running, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child: ChildProcessWithoutNullStreams = spawn(
        kubectlPath,
        ["--kubeconfig", running.kubeconfig, ...args],
        {
          env: { ...process.env, KUBECONFIG: running.kubeconfig, HOME: tmpdir() },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      const exited = new Promise<number>((done) => child.on("exit", (code) => done(code ?? -1)));
      return { child, output: () => stdout, errors: () => stderr, exited };
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL")),
  );

/** Polls until `predicate` holds (at most `timeout`). */
export const eventually = <A>(
  probe: Effect.Effect<A>,
  predicate: (value: A) => boolean,
  timeout = "10 seconds" as const,
) =>
  Effect.gen(function* () {
    while (true) {
      const value = yield* probe;
      if (predicate(value)) return value;
      yield* Effect.sleep("25 millis");
    }
  }).pipe(Effect.timeout(timeout));
