/**
 * `kopf run` as a process with credentials that cannot work. At start-up, a missing file, a YAML
 * error, an unknown context, broken certificate data and an untrusted server certificate (the
 * emulator's HTTPS server with a kubeconfig carrying another CA) end it with exit code 1 and ONE
 * line naming the problem. Failures a retry may fix (an unreachable server, a failing exec plugin)
 * keep it running, retrying with one line per log record. In every case: no stack frames, and
 * none of the secrets the kubeconfig held (with `--verbose`, so every level is printed).
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CertificateAuthority, EmulatorServer } from "@kopf/emulator";
import { Clusters } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "../bin/kopf.js");
const handlers = join(here, "fixtures/handlers.ts");

let cluster: Clusters.Built;
let dir: string;
let server = "";
let wrongCa = "";

const b64 = (text: string) => Buffer.from(text).toString("base64");

beforeAll(async () => {
  cluster = await Clusters.build(Clusters.https());
  dir = mkdtempSync(join(tmpdir(), "kopf-login-failures-"));
  const emulator = Context.get(cluster.context as unknown as Context.Context<EmulatorServer>, EmulatorServer);
  server = emulator.url;
  wrongCa = (await Effect.runPromise(CertificateAuthority.make({ commonName: "not-the-emulator" }))).certPem;
}, 60_000);

afterAll(async () => {
  await cluster?.close();
  rmSync(dir, { recursive: true, force: true });
});

const SECRETS = {
  token: "tok-cli-5ecret-0001",
  password: "pw-cli-5ecret-0002",
  env: "env-cli-5ecret-0003",
};

const user = `    token: ${SECRETS.token}\n    username: admin\n    password: ${SECRETS.password}\n`;

const kubeconfig = (name: string, url: string, userBody: string, cluster = "") => {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${url}\n${cluster}` +
      `users:\n- name: u\n  user:\n${userBody}contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`,
  );
  return path;
};

/** Run `kopf run` until it exits or `until` is seen `times` times; then stop it. */
const launch = async (args: ReadonlyArray<string>, until?: { text: RegExp; times: number }) => {
  const child = spawn(
    process.execPath,
    [bin, "run", "--standalone", "--verbose", "-n", "default", handlers, ...args],
    {
      env: { ...process.env, KUBECONFIG: join(dir, "none.yaml") },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    const seen = until === undefined ? 0 : (output.match(new RegExp(until.text, "g")) ?? []).length;
    if (until !== undefined && seen >= until.times) child.kill("SIGTERM");
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((done) => child.once("exit", (exitCode) => done(exitCode)));
  clearTimeout(timer);
  return { code, output };
};

const lines = (output: string) => output.split("\n").filter((line) => line.trim() !== "");
const stackFrames = (output: string) => lines(output).filter((line) => /^\s+at\s/.test(line)).length;
const secretsIn = (output: string) => Object.values(SECRETS).filter((secret) => output.includes(secret));

describe.concurrent("kopf run with credentials that can never work", () => {
  const cases: ReadonlyArray<readonly [string, () => ReadonlyArray<string>, RegExp]> = [
    [
      "a missing file",
      () => ["--kubeconfig", join(dir, "missing.yaml")],
      /missing\.yaml: cannot read the kubeconfig/,
    ],
    [
      "a YAML error",
      () => ["--kubeconfig", kubeconfig("yaml", server, `${user}    broken: [${SECRETS.token}\n`)],
      /yaml\.yaml: broken kubeconfig: a YAML syntax error at line \d+/,
    ],
    [
      "an unknown context",
      () => ["--kubeconfig", kubeconfig("context", server, user), "--context", "nope"],
      /context\.yaml: the context "nope" is not defined/,
    ],
    [
      "broken certificate data",
      () => ["--kubeconfig", kubeconfig("data", server, `${user}    client-key-data: "!!${SECRETS.env}"\n`)],
      /data\.yaml: the client-key-data is neither PEM/,
    ],
    [
      "an untrusted server certificate",
      () => [
        "--kubeconfig",
        kubeconfig("ca", server, user, `    certificate-authority-data: ${b64(wrongCa)}\n`),
      ],
      /the server's certificate is not trusted/,
    ],
  ];

  it.each(cases)(
    "%s: exit code 1, one line, no stack, no secrets",
    async (_, args, message) => {
      const { code, output } = await launch(args());
      expect(code).toBe(1);
      expect(lines(output)).toHaveLength(1);
      expect(output).toMatch(/^Error: /);
      expect(output).toMatch(message);
      expect(stackFrames(output)).toBe(0);
      expect(secretsIn(output)).toEqual([]);
    },
    90_000,
  );
});

describe("kopf run with credentials a retry may fix", () => {
  it("an unreachable server: retries, one line per record, no stack, no secrets", async () => {
    const path = kubeconfig("unreachable", "https://127.0.0.1:1", user);
    const { output } = await launch(["--kubeconfig", path], {
      text: /Request attempt #2\/\d+ failed/,
      times: 1,
    });
    expect(output).toMatch(/Request attempt #1\/\d+ failed; will retry/);
    expect(lines(output).every((line) => line.startsWith("["))).toBe(true);
    expect(stackFrames(output)).toBe(0);
    expect(secretsIn(output)).toEqual([]);
  }, 90_000);

  it("a failing exec plugin: re-authentication retried, one line per attempt, no stack, no secrets", async () => {
    const plugin = join(dir, "plugin.sh");
    writeFileSync(plugin, `#!/bin/sh\necho "session expired; env $SECRET_ENV" >&2\nexit 1\n`);
    chmodSync(plugin, 0o755);
    const path = kubeconfig(
      "exec",
      server,
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n` +
        `      env:\n      - name: SECRET_ENV\n        value: ${SECRETS.env}\n`,
    );
    const { output } = await launch(["--kubeconfig", path], {
      text: /Re-authentication has failed/,
      times: 2,
    });
    expect(output).toMatch(
      /Initial authentication has failed: .*exec plugin .*: it exited with code 1: session expired/,
    );
    expect(lines(output).every((line) => line.startsWith("["))).toBe(true);
    expect(stackFrames(output)).toBe(0);
    expect(secretsIn(output)).toEqual([]);
  }, 90_000);
});
