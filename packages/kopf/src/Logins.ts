/**
 * Kopf's login helpers for `on.login` handlers (docs/behaviour/operator.md#logins): `kopf.loginWithKubeconfig()` and
 * `kopf.loginWithServiceAccount()` answer the connection info of a kubeconfig or of the pod's
 * service account, or `null` when there is none (so a handler can try one, then the other, as
 * Kopf's example 13 does). Without login handlers, the operator logs in this way by itself.
 */
import { type ConnectionInfo, KubeConfigLogin, type LoginError, ServiceAccountLogin } from "@kopf/client";
import * as Effect from "effect/Effect";

/** Where the kubeconfig is read from (default: `KUBECONFIG`, else `~/.kube/config`). */
export type KubeconfigOptions = KubeConfigLogin.KubeConfigOptions;
/** Where the service account's files are (default: the in-cluster mount). */
export type ServiceAccountOptions = ServiceAccountLogin.ServiceAccountOptions;

/**
 * The credentials of the kubeconfig (its current context, or `context`); `null` without a
 * kubeconfig. Rejects with a `LoginError` naming the problem when one exists but is unusable.
 *
 * @example
 * ```ts
 * kopf.on.login(async () => (await kopf.loginWithServiceAccount()) ?? (await kopf.loginWithKubeconfig()))
 * ```
 */
export const loginWithKubeconfig = (
  options: KubeconfigOptions = {},
): Promise<ConnectionInfo.ConnectionInfo | null> =>
  Effect.runPromise(
    Effect.flatMap(KubeConfigLogin.isAvailable(options), (available) =>
      available ? KubeConfigLogin.make(options) : Effect.succeed(null),
    ) as Effect.Effect<ConnectionInfo.ConnectionInfo | null, LoginError>,
  );

/**
 * The credentials of the pod's service account; `null` outside a cluster (no token file).
 *
 * @example
 * ```ts
 * kopf.on.login(() => kopf.loginWithServiceAccount())
 * ```
 */
export const loginWithServiceAccount = (
  options: ServiceAccountOptions = {},
): Promise<ConnectionInfo.ConnectionInfo | null> =>
  Effect.runPromise(
    Effect.flatMap(ServiceAccountLogin.isAvailable(options), (available) =>
      available ? ServiceAccountLogin.login(options) : Effect.succeed(null),
    ) as Effect.Effect<ConnectionInfo.ConnectionInfo | null, LoginError>,
  );
