// No credential material in any output of a failing login. For every kind of failure (missing
// file, YAML error, unknown context, bad certificate data, a failing exec plugin, one printing
// garbage, an unreachable server, an untrusted certificate, a 401), the live client is run for
// two calls (so that re-authentication happens too) with every log level on; all log lines with
// their causes, the error's message, its pretty cause and its full inspection, and the start-up
// check's error are scanned for the secrets the kubeconfig held. The count must be 0.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest";
import { OperatorSettings, Settings } from "@kopf/settings";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Logger from "effect/Logger";
import * as References from "effect/References";
import * as Result from "effect/Result";
import { KubeApi } from "../../src/KubeApi.ts";
import * as KubeClient from "../../src/live/KubeClient.ts";
import * as StartupCheck from "../../src/live/StartupCheck.ts";
import { CA_B, SERVER_CERT, SERVER_KEY } from "../fixtures/tls.ts";

const dir = mkdtempSync(join(tmpdir(), "kopf-login-secrets-"));
let tlsServer: Server;
let unauthorized: Server;
let tlsUrl = "";
let unauthorizedUrl = "";

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  tlsServer = createHttpsServer({ cert: SERVER_CERT, key: SERVER_KEY }, (_, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"major":"1","minor":"34"}');
  });
  tlsUrl = `https://127.0.0.1:${await listen(tlsServer)}`;
  unauthorized = createHttpServer((_, response) => {
    response.writeHead(401, { "content-type": "application/json" });
    response.end('{"kind":"Status","code":401,"reason":"Unauthorized","message":"Unauthorized"}');
  });
  unauthorizedUrl = `http://127.0.0.1:${await listen(unauthorized)}`;
});
afterAll(async () => {
  for (const server of [tlsServer, unauthorized]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (text: string) => Buffer.from(text).toString("base64");
const keyPem = (secret: string) => `-----BEGIN PRIVATE KEY-----\n${b64(secret)}\n-----END PRIVATE KEY-----\n`;

/** The secrets of one scenario: each appears in the kubeconfig (some in several encodings). */
const secretsFor = (name: string) => ({
  token: `tok-${name}-5ecret`,
  password: `pw-${name}-5ecret`,
  key: `key-${name}-5ecret`,
  env: `env-${name}-5ecret`,
  provider: `idp-${name}-5ecret`,
});

type Secrets = ReturnType<typeof secretsFor>;

const user = (secrets: Secrets, extra = "") =>
  `    token: ${secrets.token}\n    username: admin\n    password: ${secrets.password}\n` +
  `    client-key-data: ${b64(keyPem(secrets.key))}\n${extra}`;

const kubeconfig = (server: string, userBody: string, cluster = "") => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server}
${cluster}users:
- name: u
  user:
${userBody}contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`;

const plugin = (name: string, body: string) => {
  const path = join(dir, `${name}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
};

/** A user whose credentials reach the network (no key data for the TLS handshake to trip on). */
const networkUser = (secrets: Secrets) =>
  `    token: ${secrets.token}\n    username: admin\n    password: ${secrets.password}\n`;

const execUser = (secrets: Secrets, command: string) =>
  `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${command}\n` +
  `      env:\n      - name: SECRET_ENV\n        value: ${secrets.env}\n`;

interface Scenario {
  readonly name: string;
  /** Whether the start-up check ends the operator (credentials that can never work). */
  readonly fatal: boolean;
  /** The kubeconfig path to use, after writing whatever it needs. */
  readonly setup: (secrets: Secrets) => { readonly path: string; readonly context?: string };
}

const write = (name: string, text: string) => {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, text);
  return path;
};

const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "missing-file",
    fatal: true,
    setup: () => ({ path: join(dir, "nowhere.yaml") }),
  },
  {
    name: "yaml-error",
    fatal: true,
    // The broken line comes right after the secrets, where a parser's snippet would show them.
    setup: (s) => ({
      path: write("yaml-error", `${kubeconfig(tlsUrl, user(s))}  oops: [unclosed ${s.token}\n`),
    }),
  },
  {
    name: "yaml-error-in-secret",
    fatal: true,
    setup: (s) => ({
      path: write(
        "yaml-error-in-secret",
        kubeconfig(tlsUrl, `    token: "${s.token}\n    password: ${s.password}\n`),
      ),
    }),
  },
  {
    name: "unknown-context",
    fatal: true,
    setup: (s) => ({
      path: write("unknown-context", kubeconfig(tlsUrl, user(s))),
      context: "no-such-context",
    }),
  },
  {
    name: "bad-base64",
    fatal: true,
    setup: (s) => ({
      path: write(
        "bad-base64",
        kubeconfig(tlsUrl, `    token: ${s.token}\n    client-certificate-data: "!!${s.key}!!"\n`),
      ),
    }),
  },
  {
    name: "exec-failing",
    fatal: false,
    setup: (s) => ({
      path: write(
        "exec-failing",
        kubeconfig(
          tlsUrl,
          execUser(s, plugin("failing", `echo "no session; env is $SECRET_ENV" >&2\nexit 4`)),
        ),
      ),
    }),
  },
  {
    name: "exec-garbage",
    fatal: false,
    setup: (s) => ({
      path: write(
        "exec-garbage",
        kubeconfig(tlsUrl, execUser(s, plugin("garbage", `echo "garbage $SECRET_ENV ${s.token}"`))),
      ),
    }),
  },
  {
    name: "auth-provider",
    fatal: false,
    setup: (s) => ({
      path: write(
        "auth-provider",
        kubeconfig(
          "https://127.0.0.1:1",
          `    auth-provider:\n      name: oidc\n      config:\n        client-secret: ${s.provider}\n        refresh-token: ${s.token}\n        idp-issuer-url: https://127.0.0.1:1\n        id-token: ${s.password}\n`,
        ),
      ),
    }),
  },
  {
    name: "unreachable",
    fatal: false,
    setup: (s) => ({ path: write("unreachable", kubeconfig("https://127.0.0.1:1", networkUser(s))) }),
  },
  {
    name: "untrusted",
    fatal: true,
    setup: (s) => ({
      path: write(
        "untrusted",
        kubeconfig(tlsUrl, networkUser(s), `    certificate-authority-data: ${b64(CA_B)}\n`),
      ),
    }),
  },
  {
    name: "unauthorized",
    fatal: false,
    setup: (s) => ({
      path: write(
        "unauthorized",
        kubeconfig(
          unauthorizedUrl,
          `    token: ${s.token}\n    username: admin\n    password: ${s.password}\n`,
        ),
      ),
    }),
  },
];

const fastSettings = Result.getOrThrow(
  Settings.make({ networking: { errorBackoffs: [0.01, 0.01], requestTimeout: 5, connectTimeout: 2 } }),
);

/** Everything a failing login can print: log lines with their causes and the errors. */
const capture = (path: string, context: string | undefined) =>
  Effect.gen(function* () {
    const output: Array<string> = [];
    const options = { kubeconfig: { paths: path, ...(context === undefined ? {} : { context }) } };
    const call = Effect.gen(function* () {
      const api = yield* KubeApi;
      for (let attempt = 0; attempt < 2; attempt++) {
        const exit = yield* Effect.exit(api.raw({ method: "GET", path: "/version" }));
        if (Exit.isFailure(exit)) {
          output.push(Cause.pretty(exit.cause), inspect(Cause.squash(exit.cause), { depth: 10 }));
          const error = Cause.squash(exit.cause);
          if (error instanceof Error) output.push(error.message, String(error.stack));
        }
      }
    }).pipe(
      Effect.provide(
        KubeClient.layer({ ...options, kubeconfig: { ...options.kubeconfig, refreshInterval: 0 } }),
      ),
    );
    yield* Effect.scoped(call);
    const checked = yield* Effect.exit(StartupCheck.run(options));
    if (Exit.isFailure(checked))
      output.push(Cause.pretty(checked.cause), inspect(Cause.squash(checked.cause)));
    return output;
  }).pipe(Effect.provideService(OperatorSettings, fastSettings));

const captureAll = (path: string, context: string | undefined) =>
  Effect.gen(function* () {
    const lines: Array<string> = [];
    const logger = Logger.make<unknown, void>(({ message, logLevel, cause }) => {
      lines.push(
        `${logLevel} ${inspect(message, { depth: 10 })} ${Cause.pretty(cause)} ${inspect(cause, { depth: 10 })}`,
      );
    });
    const output = yield* capture(path, context).pipe(
      Effect.provide(Logger.layer([logger], { mergeWithExisting: false })),
      Effect.provideService(References.MinimumLogLevel, "All"),
    );
    return [...lines, ...output];
  });

const encodings = (secret: string) => [secret, b64(secret), b64(keyPem(secret))];

describe("no secret in the output of any failing login", () => {
  it.live.each(scenarios)("$name", ({ name, setup }) =>
    Effect.gen(function* () {
      const secrets = secretsFor(name);
      const { path, context } = setup(secrets);
      const output = (yield* captureAll(path, context)).join("\n");
      assert.isAbove(output.length, 0);
      const found = Object.values(secrets)
        .flatMap(encodings)
        .filter((secret) => output.includes(secret));
      assert.deepStrictEqual(found, [], `secrets found in the output of ${name}:\n${output.slice(0, 4000)}`);
    }),
  );
});

describe("the start-up check", () => {
  it.live.each(scenarios)("$name: fatal is $fatal", ({ name, fatal, setup }) =>
    Effect.gen(function* () {
      const { path, context } = setup(secretsFor(`${name}-check`));
      const options = { kubeconfig: { paths: path, ...(context === undefined ? {} : { context }) } };
      const exit = yield* Effect.exit(
        StartupCheck.run(options).pipe(Effect.provideService(OperatorSettings, fastSettings)),
      );
      assert.strictEqual(Exit.isFailure(exit), fatal);
      if (Exit.isFailure(exit)) {
        const error = Cause.squash(exit.cause) as StartupCheck.StartupError;
        assert.strictEqual(error._tag, "StartupError");
        assert.notInclude(error.message, "\n");
        if (name !== "missing-file")
          assert.include(error.message, name === "untrusted" ? "not trusted" : path);
      }
    }),
  );
});
