/**
 * Login from kubeconfig files (Kopf's `login_with_kubeconfig`, spec §12.3), reusing
 * `@kubernetes/client-node`'s `KubeConfig` for parsing and for every auth plugin it knows
 * (static tokens, exec credential plugins, token files, OIDC, cloud providers).
 *
 * Files: the explicit paths (`--kubeconfig`), else `$KUBECONFIG` (a path-separator list; the
 * first file to name a cluster, user or context wins, as kubectl merges them; missing files are
 * skipped), else `~/.kube/config`. The context is the explicit one (`--context`), else the first
 * `current-context` found. Broken files fail with a `LoginError` naming the file and the problem.
 *
 * Edge code: reads files and the environment.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { OperatorSettings } from "@kopf/settings";
import type { Cluster, KubeConfig, User } from "@kubernetes/client-node";
import { Clock, Effect, Result } from "effect";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import { LoginError } from "../LoginError.ts";

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

const invalid = (message: string, cause?: unknown) =>
  new LoginError({ reason: "InvalidConfiguration", message, ...(cause === undefined ? {} : { cause }) });

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).trim();

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

interface Loaded {
  readonly source: string;
  readonly config: KubeConfig;
}

type KubeConfigClass = new () => KubeConfig;

// client-node loads its whole generated API (about 2 s): load it on the first login only, so
// that importing @kopf/client stays cheap for everything that never reads a kubeconfig.
let clientNode: Promise<KubeConfigClass> | undefined;
const loadKubeConfigClass: Effect.Effect<KubeConfigClass> = Effect.promise(() => {
  clientNode ??= import("@kubernetes/client-node").then((module) => module.KubeConfig);
  return clientNode;
});

const readConfig = (
  KubeConfigCtor: KubeConfigClass,
  file: string,
  required: boolean,
): Effect.Effect<Loaded | undefined, LoginError> =>
  Effect.tryPromise({
    try: () => readFile(file, "utf-8"),
    catch: (cause) => cause as NodeJS.ErrnoException,
  }).pipe(
    Effect.catch((error) =>
      error.code === "ENOENT" && !required
        ? Effect.succeed(undefined)
        : Effect.fail(invalid(`${file}: cannot read the kubeconfig: ${errorText(error)}`, error)),
    ),
    Effect.flatMap((text) =>
      text === undefined
        ? Effect.succeed(undefined)
        : text.trim() === ""
          ? Effect.fail(invalid(`${file}: the kubeconfig is empty.`))
          : Effect.try({
              try: () => {
                const config = new KubeConfigCtor();
                config.loadFromString(text);
                // Relative paths in a kubeconfig are relative to the file's directory.
                config.makePathsAbsolute(dirname(file));
                return { source: text, config };
              },
              catch: (cause) => invalid(`${file}: broken kubeconfig: ${errorText(cause)}`, cause),
            }),
    ),
  );

/** Merge files as kubectl does: the first definition of each name wins, and the first current-context. */
const merge = (KubeConfigCtor: KubeConfigClass, loaded: ReadonlyArray<Loaded>): KubeConfig => {
  const firstByName = <T extends { readonly name: string }>(
    lists: ReadonlyArray<ReadonlyArray<T>>,
  ): Array<T> => {
    const seen = new Map<string, T>();
    for (const list of lists) for (const item of list) if (!seen.has(item.name)) seen.set(item.name, item);
    return [...seen.values()];
  };
  const merged = new KubeConfigCtor();
  merged.loadFromOptions({
    clusters: firstByName(loaded.map((l) => l.config.getClusters())),
    users: firstByName(loaded.map((l) => l.config.getUsers())),
    contexts: firstByName(loaded.map((l) => l.config.getContexts())),
    currentContext: loaded.map((l) => l.config.getCurrentContext()).find((name) => !!name) ?? "",
  });
  return merged;
};

/** Select the context and check that its cluster and user exist. */
const selectContext = (
  config: KubeConfig,
  options: KubeConfigOptions,
  where: string,
): Result.Result<
  { readonly cluster: Cluster; readonly user: User; readonly namespace?: string },
  LoginError
> => {
  const name = options.context ?? config.getCurrentContext();
  if (!name) return Result.fail(invalid(`${where}: no current-context is set and no context was requested.`));
  const context = config.getContextObject(name);
  if (context === null)
    return Result.fail(invalid(`${where}: the context ${JSON.stringify(name)} is not defined.`));
  const cluster = config.getCluster(context.cluster);
  if (cluster === null) {
    return Result.fail(
      invalid(
        `${where}: the context ${JSON.stringify(name)} refers to an undefined cluster ${JSON.stringify(context.cluster)}.`,
      ),
    );
  }
  const user = config.getUser(context.user);
  if (user === null && context.user) {
    return Result.fail(
      invalid(
        `${where}: the context ${JSON.stringify(name)} refers to an undefined user ${JSON.stringify(context.user)}.`,
      ),
    );
  }
  config.setCurrentContext(name);
  return Result.succeed({
    cluster,
    user: user ?? { name: "" },
    ...(context.namespace ? { namespace: context.namespace } : {}),
  });
};

const splitAuthorization = (header: unknown): { scheme?: string; token?: string } => {
  if (typeof header !== "string" || header.trim() === "") return {};
  const [scheme, ...rest] = header.trim().split(/\s+/);
  return rest.length === 0 ? { scheme: scheme! } : { scheme: scheme!, token: rest.join(" ") };
};

const pemOf = (value: unknown): string | undefined =>
  value === undefined || value === null
    ? undefined
    : Buffer.isBuffer(value)
      ? value.toString("utf-8")
      : String(value);

/** Whether a user's credentials come from a plugin (and so may change over time). */
const isDynamic = (user: User): boolean => user.exec !== undefined || user.authProvider !== undefined;

/**
 * Build the connection info of the selected context, running its auth plugin if it has one.
 */
const connectionOf = (
  config: KubeConfig,
  selected: { readonly cluster: Cluster; readonly user: User; readonly namespace?: string },
  options: KubeConfigOptions,
  where: string,
): Effect.Effect<ConnectionInfo.ConnectionInfo, LoginError> =>
  Effect.gen(function* () {
    const { cluster, user } = selected;
    const https: { headers?: Record<string, unknown>; cert?: unknown; key?: unknown } = {};
    yield* Effect.tryPromise({
      try: () => config.applyToHTTPSOptions(https as never),
      catch: (cause) =>
        new LoginError({
          reason: "PluginFailed",
          message: `${where}: the credentials of the user ${JSON.stringify(user.name)} could not be obtained${
            user.exec?.command ? ` from the exec plugin ${JSON.stringify(user.exec.command)}` : ""
          }: ${errorText(cause) || "no details"}`,
          cause,
        }),
    });
    const fromPlugin = splitAuthorization(https.headers?.Authorization ?? https.headers?.authorization);
    // Like Kopf, take an auth provider's `access-token` even when no plugin knows the provider.
    const accessToken = user.authProvider?.config?.["access-token"];
    const auth =
      fromPlugin.scheme === undefined && typeof accessToken === "string" && accessToken !== ""
        ? { scheme: "Bearer", token: accessToken }
        : fromPlugin;
    const now = yield* Clock.currentTimeMillis;
    const refresh = (options.refreshInterval ?? 60) * 1000;
    const pluginCert = !user.certFile && !user.certData ? pemOf(https.cert) : undefined;
    const pluginKey = !user.keyFile && !user.keyData ? pemOf(https.key) : undefined;
    const made = ConnectionInfo.make({
      server: cluster.server,
      caPath: cluster.caFile,
      caData: cluster.caData,
      insecure: cluster.skipTLSVerify || undefined,
      tlsServerName: cluster.tlsServerName,
      proxyUrl: cluster.proxyUrl,
      // Basic auth travels in the Authorization header built from these, not from the plugin headers.
      username: user.username,
      password: user.password,
      scheme: auth.scheme === "Basic" ? undefined : auth.scheme,
      token: auth.scheme === "Basic" ? undefined : auth.token,
      certificatePath: user.certFile,
      certificateData: user.certData ?? pluginCert,
      privateKeyPath: user.keyFile,
      privateKeyData: user.keyData ?? pluginKey,
      defaultNamespace: selected.namespace,
      priority: options.priority ?? 10,
      // Kopf's built-in logins carry `networking.trustEnv` into their credentials.
      trustEnv: (yield* OperatorSettings).networking.trustEnv,
      expiration: isDynamic(user) ? now + refresh : undefined,
    });
    return yield* Result.isSuccess(made)
      ? Effect.succeed(made.success)
      : Effect.fail(invalid(`${where}: ${made.failure.message}`, made.failure));
  });

/**
 * A login from kubeconfig files: each run re-reads the files (so edits and rotated files are
 * picked up) but keeps client-node's plugin caches while the files are unchanged, so exec
 * plugins are re-run only when their credentials expire.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
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
  let cached: { readonly key: string; readonly config: KubeConfig } | undefined;
  return Effect.gen(function* () {
    const { files, explicit } = configFiles(options);
    const KubeConfigCtor = yield* loadKubeConfigClass;
    const loaded = (yield* Effect.forEach(files, (file) =>
      readConfig(KubeConfigCtor, file, explicit),
    )).filter((item): item is Loaded => item !== undefined);
    const where = files.length === 1 ? files[0]! : `kubeconfig files ${files.join(delimiter)}`;
    if (loaded.length === 0) {
      return yield* new LoginError({ reason: "NoConfiguration", message: `${where}: no kubeconfig found.` });
    }
    const key = JSON.stringify([options.context ?? null, ...loaded.map((l) => l.source)]);
    const config =
      cached?.key === key
        ? cached.config
        : loaded.length === 1
          ? loaded[0]!.config
          : merge(KubeConfigCtor, loaded);
    cached = { key, config };
    const selected = selectContext(config, options, where);
    if (Result.isFailure(selected)) return yield* Effect.fail(selected.failure);
    return yield* connectionOf(config, selected.success, options, where);
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
