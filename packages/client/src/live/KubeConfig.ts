/**
 * Login from kubeconfig files (Kopf's `login_with_kubeconfig`). The files are parsed as YAML
 * here; exec credential plugins are run here too; only `auth-provider` users (OIDC, gcp, azure)
 * load `@kubernetes/client-node`, which refreshes them.
 *
 * Files: the explicit paths (`--kubeconfig`), else `$KUBECONFIG` (a path-separator list; the
 * first file to name a cluster, user or context wins, as kubectl merges them; missing files are
 * skipped), else `~/.kube/config`. The context is the explicit one (`--context`), else the first
 * `current-context` found. Broken files fail with a `LoginError` naming the file and the problem
 * — never a value from the file: tokens, passwords and keys stay out of messages and logs.
 *
 * Edge code: reads files and the environment, runs exec plugins.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { OperatorSettings } from "@kopf/settings";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import { LoginError } from "../LoginError.ts";
import { authProviders, needsProvider } from "./internal/authProvider.ts";
import { execCredentials } from "./internal/execCredential.ts";
import type { KubeConfigFile as KubeConfigFileModel, Selected, User } from "./internal/kubeconfigFile.ts";
import * as KubeConfigFile from "./internal/kubeconfigFile.ts";
import { secretsOf } from "./internal/secrets.ts";

/** Where to look and which context to use. @category models */
export interface KubeConfigOptions {
  /** Explicit kubeconfig files (like `--kubeconfig`); they must exist. */
  readonly paths?: string | ReadonlyArray<string> | undefined;
  /** The context to use (like `--context`); default: the files' `current-context`. */
  readonly context?: string | undefined;
  /**
   * The environment to read `KUBECONFIG` and `HOME` from. Default `process.env`, read at each
   * login: not Effect's default `ConfigProvider`, which snapshots the environment once, while
   * `KUBECONFIG` may change at runtime (KfcBridge points it at the operator's cluster for
   * kubernetes-fluent-client; embedding applications set it before starting an operator).
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Vault priority of the credentials. Default 10 (Kopf's kubeconfig login). */
  readonly priority?: number | undefined;
  /**
   * Seconds after which credentials from plugins (exec, token files, OIDC…) are refreshed by a
   * new login; static credentials never expire. Default 60.
   */
  readonly refreshInterval?: number | undefined;
}

const invalid = (message: string) => new LoginError({ reason: "InvalidConfiguration", message });

/**
 * The kubeconfig files to read, in order, and whether they were named explicitly.
 *
 * @example
 * ```ts
 * configFiles({ env: { KUBECONFIG: "/a:/b" } }) // { files: ["/a", "/b"], explicit: false }
 * ```
 */
export const configFiles = (
  options: KubeConfigOptions,
): { readonly files: ReadonlyArray<string>; readonly explicit: boolean } => {
  if (options.paths !== undefined) {
    const paths = typeof options.paths === "string" ? [options.paths] : options.paths;
    return { files: paths, explicit: true };
  }
  const env = options.env ?? process.env;
  const fromEnv = (env.KUBECONFIG ?? "").split(delimiter).filter((path) => path !== "");
  if (fromEnv.length > 0) return { files: fromEnv, explicit: false };
  return { files: [join(env.HOME ?? homedir(), ".kube", "config")], explicit: false };
};

const readConfig = (
  file: string,
  required: boolean,
): Effect.Effect<KubeConfigFileModel | undefined, LoginError> =>
  Effect.tryPromise({
    try: () => readFile(file, "utf-8"),
    catch: (cause) => cause as NodeJS.ErrnoException,
  }).pipe(
    Effect.catch((error) =>
      error.code === "ENOENT" && !required
        ? Effect.succeed(undefined)
        : Effect.fail(
            invalid(
              `${file}: cannot read the kubeconfig: ${error.code === "ENOENT" ? "no such file (ENOENT)" : (error.code ?? "unreadable")}`,
            ),
          ),
    ),
    Effect.flatMap((text) => {
      if (text === undefined) return Effect.succeed(undefined);
      const parsed = KubeConfigFile.parse(text, file);
      return Result.isSuccess(parsed)
        ? Effect.succeed(parsed.success)
        : Effect.fail(invalid(`${file}: broken kubeconfig: ${parsed.failure}.`));
    }),
  );

/** A `*-data` field checked now, so that a broken one is a login error naming the field. */
const checkData = (
  value: string | undefined,
  field: string,
  where: string,
): Effect.Effect<void, LoginError> =>
  value === undefined || Result.isSuccess(ConnectionInfo.decodePem(value, field))
    ? Effect.void
    : Effect.fail(invalid(`${where}: the ${field} is neither PEM text nor base64-encoded PEM.`));

/** The token of a `tokenFile`, re-read at each login. */
const readToken = (path: string, where: string): Effect.Effect<string, LoginError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf-8"),
    catch: (cause) =>
      invalid(
        `${where}: cannot read the token file ${path}: ${(cause as NodeJS.ErrnoException).code ?? "unreadable"}`,
      ),
  }).pipe(Effect.map((text) => text.trim()));

/** Whether a user's credentials come from a plugin or a file (and so may change over time). */
const isDynamic = (user: User): boolean =>
  user.exec !== undefined || user.authProvider !== undefined || user.tokenFile !== undefined;

interface Plugins {
  readonly exec: ReturnType<typeof execCredentials>;
  readonly providers: ReturnType<typeof authProviders>;
}

/** Build the connection info of the selected context, running its plugin if it has one. */
const connectionOf = (
  selected: Selected,
  plugins: Plugins,
  options: KubeConfigOptions,
  where: string,
): Effect.Effect<ConnectionInfo.ConnectionInfo, LoginError> =>
  Effect.gen(function* () {
    const { cluster, user } = selected;
    const secrets = secretsOf(user);
    yield* checkData(cluster.caData, "certificate-authority-data", where);
    yield* checkData(user.certData, "client-certificate-data", where);
    yield* checkData(user.keyData, "client-key-data", where);
    const exec =
      user.exec === undefined ? undefined : yield* plugins.exec.get(user.exec, user.name, where, secrets);
    const provider = needsProvider(user)
      ? yield* plugins.providers.get(cluster, user, where, secrets)
      : undefined;
    const fromProvider = splitAuthorization(provider?.authorization);
    // Like Kopf, take an auth provider's `access-token` even when no plugin knows the provider.
    const accessToken = user.authProvider?.config["access-token"];
    const token =
      user.token ??
      exec?.token ??
      (fromProvider.scheme === "Bearer" ? fromProvider.token : undefined) ??
      (user.tokenFile === undefined ? undefined : yield* readToken(user.tokenFile, where)) ??
      (typeof accessToken === "string" && accessToken !== "" ? accessToken : undefined);
    const scheme =
      fromProvider.scheme !== undefined && fromProvider.scheme !== "Bearer" ? fromProvider : undefined;
    const now = yield* Clock.currentTimeMillis;
    const refresh = now + (options.refreshInterval ?? 60) * 1000;
    const pluginCert =
      user.certFile || user.certData ? undefined : (exec?.certificateData ?? provider?.certificateData);
    const pluginKey = user.keyFile || user.keyData ? undefined : (exec?.keyData ?? provider?.keyData);
    const made = ConnectionInfo.make({
      server: cluster.server,
      caPath: cluster.caFile,
      caData: cluster.caData,
      insecure: cluster.insecure || undefined,
      tlsServerName: cluster.tlsServerName,
      proxyUrl: cluster.proxyUrl,
      username: user.username,
      password: user.password,
      scheme: scheme?.scheme ?? (token !== undefined ? "Bearer" : undefined),
      token: scheme?.token ?? token,
      certificatePath: user.certFile,
      certificateData: user.certData ?? pluginCert,
      privateKeyPath: user.keyFile,
      privateKeyData: user.keyData ?? pluginKey,
      defaultNamespace: selected.namespace,
      priority: options.priority ?? 10,
      // Kopf's built-in logins carry `networking.trustEnv` into their credentials.
      trustEnv: (yield* OperatorSettings).networking.trustEnv,
      expiration: isDynamic(user) ? Math.min(refresh, exec?.expiration ?? refresh) : undefined,
    });
    return yield* Result.isSuccess(made)
      ? Effect.succeed(made.success)
      : Effect.fail(invalid(`${where}: ${made.failure.message}`));
  });

const splitAuthorization = (header: string | undefined): { scheme?: string; token?: string } => {
  if (header === undefined) return {};
  const [scheme, ...rest] = header.split(/\s+/);
  return rest.length === 0 ? { scheme: scheme! } : { scheme: scheme!, token: rest.join(" ") };
};

/**
 * A login from kubeconfig files: each run re-reads the files (so edits and rotated files are
 * picked up); exec plugins are re-run only when their credentials expire.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { KubeConfigLogin } from "@kopf/client"
 * const program = Effect.gen(function* () {
 *   const login = KubeConfigLogin.make({ context: "kind-kind" })
 *   const info = yield* login   // ConnectionInfo for the vault
 * })
 * ```
 */
export const make = (
  options: KubeConfigOptions = {},
): Effect.Effect<ConnectionInfo.ConnectionInfo, LoginError> => {
  const plugins: Plugins = { exec: execCredentials(), providers: authProviders() };
  return Effect.gen(function* () {
    const { files, explicit } = configFiles(options);
    const loaded = (yield* Effect.forEach(files, (file) => readConfig(file, explicit))).filter(
      (item): item is KubeConfigFileModel => item !== undefined,
    );
    const where = files.length === 1 ? files[0]! : `kubeconfig files ${files.join(delimiter)}`;
    if (loaded.length === 0) {
      return yield* new LoginError({ reason: "NoConfiguration", message: `${where}: no kubeconfig found.` });
    }
    const selected = KubeConfigFile.select(KubeConfigFile.merge(loaded), options.context);
    if (Result.isFailure(selected)) return yield* invalid(`${where}: ${selected.failure}.`);
    return yield* connectionOf(selected.success, plugins, options, where);
  });
};

/**
 * Whether a kubeconfig is available where {@link make} would look (for the default login).
 *
 * @example
 * ```ts
 * if (yield* KubeConfigLogin.isAvailable()) { ... }
 * ```
 */
export const isAvailable = (options: KubeConfigOptions = {}): Effect.Effect<boolean> =>
  Effect.forEach(configFiles(options).files, (file) =>
    Effect.tryPromise(() => readFile(file, "utf-8")).pipe(
      Effect.as(true),
      Effect.orElseSucceed(() => false),
    ),
  ).pipe(Effect.map((found) => found.some((exists) => exists)));
