/**
 * The live client, assembled: the default login (kubeconfig and in-cluster service account, as
 * Kopf's fallback login handlers do), the credentials vault re-running it when credentials are
 * rejected or expire, the live transport (`NodeTransport`), and `KubeApi` on top.
 *
 * Edge code: reads files and the environment, opens sockets.
 */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import type * as ConnectionInfo from "../ConnectionInfo.ts";
import { type ClientOptions, KubeApi } from "../KubeApi.ts";
import type { KubeTransport } from "../KubeTransport.ts";
import { LoginError } from "../LoginError.ts";
import { type Credentials, CredentialsVault } from "../Vault.ts";
import * as KubeConfigLogin from "./KubeConfig.ts";
import * as NodeTransport from "./NodeTransport.ts";
import * as ServiceAccountLogin from "./ServiceAccount.ts";
import type { TransportOptions } from "./TransportOptions.ts";

/** How to connect. @category models */
export interface LiveOptions {
  /** Kubeconfig files and context (`--kubeconfig`, `--context`); naming either disables the in-cluster login. */
  readonly kubeconfig?: KubeConfigLogin.KubeConfigOptions | undefined;
  readonly serviceAccount?: ServiceAccountLogin.ServiceAccountOptions | undefined;
  /** A custom login (e.g. the operator's `on.login` handlers) replacing the default one. */
  readonly login?: Effect.Effect<Credentials, LoginError> | undefined;
  readonly transport?: TransportOptions | undefined;
  readonly client?: ClientOptions | undefined;
}

/** The vault keys of the built-in logins (Kopf's handler ids). */
export const KUBECONFIG_KEY = "login_with_kubeconfig";
export const SERVICE_ACCOUNT_KEY = "login_with_service_account";

/**
 * Kopf's fallback login: the kubeconfig (priority 10) if one exists and the service account
 * (priority 20) if its token is mounted — in a pod with both, the service account wins. With an
 * explicit kubeconfig path or context, only the kubeconfig is used.
 *
 * @example
 * ```ts
 * const login = KubeClient.defaultLogin({ kubeconfig: { context: "kind-kind" } })
 * const credentials = yield* login // { login_with_kubeconfig: ConnectionInfo }
 * ```
 */
export const defaultLogin = (options: LiveOptions = {}): Effect.Effect<Credentials, LoginError> => {
  const kubeconfig = KubeConfigLogin.make(options.kubeconfig ?? {});
  const explicit = options.kubeconfig?.paths !== undefined || options.kubeconfig?.context !== undefined;
  return Effect.gen(function* () {
    const attempts: Array<readonly [string, Effect.Effect<ConnectionInfo.ConnectionInfo, LoginError>]> = [];
    if (explicit || (yield* KubeConfigLogin.isAvailable(options.kubeconfig ?? {}))) {
      attempts.push([KUBECONFIG_KEY, kubeconfig]);
    }
    if (!explicit && (yield* ServiceAccountLogin.isAvailable(options.serviceAccount ?? {}))) {
      attempts.push([SERVICE_ACCOUNT_KEY, ServiceAccountLogin.login(options.serviceAccount ?? {})]);
    }
    if (attempts.length === 0) {
      return yield* new LoginError({
        reason: "NoConfiguration",
        message:
          "No kubeconfig ($KUBECONFIG or ~/.kube/config) and no in-cluster service account were found. " +
          "Point KUBECONFIG to a kubeconfig, pass one explicitly, or add a login handler.",
      });
    }
    const credentials: Record<string, ConnectionInfo.ConnectionInfo> = {};
    const failures: Array<LoginError> = [];
    for (const [key, attempt] of attempts) {
      const result = yield* Effect.result(attempt);
      if (Result.isSuccess(result)) credentials[key] = result.success;
      else failures.push(result.failure);
    }
    if (Object.keys(credentials).length === 0) return yield* Effect.fail(failures[0]!);
    for (const failure of failures) yield* Effect.logWarning(`A login has failed: ${failure.message}`);
    return credentials;
  });
};

/**
 * The live `KubeApi` with its vault and transport (all three are provided).
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
 * import { KubeApi, KubeClient } from "@kopf/client"
 * const program = Effect.gen(function* () {
 *   const api = yield* KubeApi
 *   return yield* api.raw({ method: "GET", path: "/version" })
 * }).pipe(Effect.provide(KubeClient.layer({ kubeconfig: { context: "kind-kind" } })))
 * ```
 */
export const layer = (options: LiveOptions = {}): Layer.Layer<KubeApi | CredentialsVault | KubeTransport> => {
  const vault = CredentialsVault.layer({ login: options.login ?? defaultLogin(options) });
  const transport = NodeTransport.layer(options.transport);
  return KubeApi.layer(options.client).pipe(Layer.provideMerge(Layer.mergeAll(vault, transport)));
};
