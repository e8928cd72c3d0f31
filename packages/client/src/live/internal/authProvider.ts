/**
 * Kubeconfig `auth-provider` users (OIDC with token refresh, the legacy gcp and azure providers,
 * token files and exec given as provider settings): `@kubernetes/client-node` knows how to refresh
 * them, so it runs them. It is loaded on the first such login only: it costs hundreds of
 * milliseconds and tens of MiB, which every other kind of user is spared.
 *
 * Providers client-node does not know are left to the caller (Kopf takes their `access-token`).
 */
import type { KubeConfig } from "@kubernetes/client-node";
import * as Effect from "effect/Effect";
import { LoginError } from "../../LoginError.ts";
import type { Cluster, User } from "./kubeconfigFile.ts";
import { redact } from "./secrets.ts";

/** What the provider gave. */
export interface ProviderResult {
  readonly authorization?: string | undefined;
  readonly certificateData?: string | undefined;
  readonly keyData?: string | undefined;
}

const KNOWN = new Set(["oidc", "gcp", "azure", "exec"]);

/**
 * Whether client-node is needed for this user.
 *
 * @example
 * ```ts
 * needsProvider({ name: "u", authProvider: { name: "oidc", config: {} } }) // true
 * ```
 */
export const needsProvider = (user: User): boolean =>
  user.authProvider !== undefined &&
  (KNOWN.has(user.authProvider.name) ||
    user.authProvider.config.exec !== undefined ||
    user.authProvider.config.tokenFile !== undefined);

type KubeConfigClass = new () => KubeConfig;
let clientNode: Promise<KubeConfigClass> | undefined;

const pemText = (value: unknown): string | undefined =>
  value === undefined || value === null
    ? undefined
    : Buffer.isBuffer(value)
      ? value.toString("utf-8")
      : String(value);

/**
 * Providers with their state (client-node keeps refreshed tokens in its objects), one per user.
 *
 * @example
 * ```ts
 * const providers = authProviders()
 * const { authorization } = yield* providers.get(cluster, user, where, secrets)
 * ```
 */
export const authProviders = () => {
  const configs = new Map<string, KubeConfig>();
  const get = (
    cluster: Cluster,
    user: User,
    where: string,
    secrets: ReadonlyArray<string>,
  ): Effect.Effect<ProviderResult, LoginError> =>
    Effect.gen(function* () {
      clientNode ??= import("@kubernetes/client-node").then((module) => module.KubeConfig);
      const KubeConfigCtor = yield* Effect.promise(() => clientNode!);
      const key = JSON.stringify([cluster.server, user]);
      let config = configs.get(key);
      if (config === undefined) {
        config = new KubeConfigCtor();
        config.loadFromOptions({
          clusters: [{ name: "c", server: cluster.server, skipTLSVerify: cluster.insecure }],
          users: [{ name: user.name || "u", authProvider: user.authProvider }],
          contexts: [{ name: "x", cluster: "c", user: user.name || "u" }],
          currentContext: "x",
        });
        configs.set(key, config);
      }
      const options: { headers?: Record<string, unknown>; cert?: unknown; key?: unknown } = {};
      const loaded = config;
      yield* Effect.tryPromise({
        try: () => loaded.applyToHTTPSOptions(options as never),
        catch: (cause) =>
          new LoginError({
            reason: "PluginFailed",
            message: `${where}: the auth provider ${JSON.stringify(user.authProvider?.name)} of the user ${JSON.stringify(user.name)} failed: ${redact(cause instanceof Error ? cause.message : String(cause), secrets).slice(0, 300)}`,
          }),
      });
      const header = options.headers?.Authorization ?? options.headers?.authorization;
      return {
        authorization: typeof header === "string" && header.trim() !== "" ? header.trim() : undefined,
        certificateData: pemText(options.cert),
        keyData: pemText(options.key),
      };
    });
  return { get };
};
