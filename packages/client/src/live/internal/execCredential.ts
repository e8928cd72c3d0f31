/**
 * Exec credential plugins (kubeconfig's `users[].user.exec`, as kubectl runs them): the command
 * runs with its arguments and extra environment, non-interactively, and prints an
 * `ExecCredential` whose `status` holds a token or a client certificate and key, and optionally
 * when they expire. Credentials are reused until that expiry.
 *
 * What the plugin prints never reaches an error message: stdout is credentials, and stderr is
 * scrubbed of the user's secrets and shortened.
 */
import type { ExecFileException } from "node:child_process";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { LoginError } from "../../LoginError.ts";
import type { Exec } from "./kubeconfigFile.ts";
import { redact } from "./secrets.ts";

/** What a plugin gave. */
export interface ExecResult {
  readonly token?: string | undefined;
  readonly certificateData?: string | undefined;
  readonly keyData?: string | undefined;
  /** Epoch milliseconds, when the plugin said. */
  readonly expiration?: number | undefined;
}

/** How long a plugin may run. */
const TIMEOUT_MS = 60_000;
const STDERR_LIMIT = 300;

const run = async (exec: Exec): Promise<{ stdout: string; stderr: string; error?: ExecFileException }> => {
  // Node.js's child_process is loaded only here: most kubeconfigs run no plugin.
  const { execFile } = await import("node:child_process");
  return new Promise((resolve) => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const { name, value } of exec.env) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify({
      apiVersion: exec.apiVersion ?? "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      spec: { interactive: false },
    });
    execFile(
      exec.command,
      [...exec.args],
      { env, timeout: TIMEOUT_MS, maxBuffer: 4 * 2 ** 20, encoding: "utf-8" },
      (error, stdout, stderr) => resolve({ stdout, stderr, ...(error ? { error } : {}) }),
    );
  });
};

const shorten = (text: string): string => {
  const line = text
    .trim()
    .split("\n")
    .filter((part) => part.trim() !== "")
    .join(" | ");
  return line.length > STDERR_LIMIT ? `${line.slice(0, STDERR_LIMIT)}…` : line;
};

/** Decode the plugin's output; the problem never quotes it. */
const decode = (stdout: string): ExecResult | string => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return `it printed no ExecCredential (${stdout.trim() === "" ? "no output" : `${stdout.length} bytes that are not JSON`})`;
  }
  const status = (parsed as { status?: Record<string, unknown> } | null)?.status;
  if (typeof status !== "object" || status === null) return "its ExecCredential has no status";
  const text = (key: string) =>
    typeof status[key] === "string" && status[key] !== "" ? String(status[key]) : undefined;
  const token = text("token");
  const certificateData = text("clientCertificateData");
  const keyData = text("clientKeyData");
  if (token === undefined && (certificateData === undefined || keyData === undefined)) {
    return "its ExecCredential has neither a token nor a client certificate and key";
  }
  const stamp = text("expirationTimestamp");
  const expiration = stamp === undefined ? undefined : Date.parse(stamp);
  if (expiration !== undefined && Number.isNaN(expiration)) return "its expirationTimestamp is not a time";
  return { token, certificateData, keyData, expiration };
};

/**
 * A runner with a cache: the same plugin (command, arguments, environment) is run again only
 * once its credentials have expired (on `Clock`); without an expiry it runs at every call.
 *
 * @example
 * ```ts
 * const plugins = execCredentials()
 * const result = yield* plugins.get(user.exec, user.name, "/home/me/.kube/config", secrets)
 * ```
 */
export const execCredentials = () => {
  const cache = new Map<string, ExecResult>();
  const get = (
    exec: Exec,
    user: string,
    where: string,
    secrets: ReadonlyArray<string>,
  ): Effect.Effect<ExecResult, LoginError> =>
    Effect.gen(function* () {
      const key = JSON.stringify(exec);
      const now = yield* Clock.currentTimeMillis;
      const cached = cache.get(key);
      if (cached?.expiration !== undefined && cached.expiration > now) return cached;
      cache.delete(key);
      const failed = (problem: string) =>
        new LoginError({
          reason: "PluginFailed",
          message: `${where}: the credentials of the user ${JSON.stringify(user)} could not be obtained from the exec plugin ${JSON.stringify(exec.command)}: ${problem}`,
        });
      if (exec.interactiveMode === "Always") {
        return yield* failed("it needs an interactive terminal (interactiveMode: Always)");
      }
      const { stdout, stderr, error } = yield* Effect.promise(() => run(exec));
      if (error !== undefined) {
        const why =
          error.code === "ENOENT"
            ? "the command is not found"
            : error.killed === true
              ? `it did not finish within ${TIMEOUT_MS / 1000}s`
              : `it exited with ${typeof error.code === "number" ? `code ${error.code}` : (error.code ?? "an error")}`;
        const detail = shorten(redact(stderr, secrets));
        return yield* failed(detail === "" ? why : `${why}: ${detail}`);
      }
      const result = decode(stdout);
      if (typeof result === "string") return yield* failed(result);
      cache.set(key, result);
      return result;
    });
  return { get };
};
