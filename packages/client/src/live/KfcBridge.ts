/**
 * Makes kubernetes-fluent-client's `K8s()` reach the same cluster with the same credentials as
 * the operator. KFC has no injectable configuration: it reads the kubeconfig named by
 * `$KUBECONFIG` on every call. So the bridge writes the operator's current credentials (the
 * vault's top-priority item) into a private kubeconfig file (mode 0600, certificates inlined),
 * points `$KUBECONFIG` at it, and rewrites it whenever the credentials change (re-login, token
 * rotation, expiry). On scope close the file is removed and `$KUBECONFIG` restored.
 *
 * Caveats (KFC's, see the toolchain notes): for https servers KFC ignores
 * `insecure-skip-tls-verify` and `tls-server-name`, and it drops basic auth; the bridge logs a
 * warning when the credentials need those. KFC cannot reach the in-process emulator (it opens
 * sockets): run the emulator's HTTPS server and log in with its kubeconfig instead.
 *
 * Edge code: files and the process environment.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Context, Duration, Effect, Layer, Result, Schedule } from "effect";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import { KubeApiError } from "../KubeApiError.ts";
import type { LoginError } from "../LoginError.ts";
import { CredentialsVault } from "../Vault.ts";

/** @category models */
export interface KfcBridgeOptions {
  /** Where to write the kubeconfig; default a new private temp directory. */
  readonly path?: string | undefined;
  /** How often to look for changed credentials. Default 5 seconds. */
  readonly interval?: Duration.Input | undefined;
}

const b64 = (text: string) => Buffer.from(text, "utf-8").toString("base64");

const pem = (path: string | undefined, data: string | undefined, what: string) =>
  Effect.gen(function* () {
    if (path) {
      return yield* Effect.tryPromise({
        try: () => readFile(path, "utf-8"),
        catch: (cause) =>
          KubeApiError.transport(`Cannot read the ${what} file ${path}: ${String(cause)}`, cause),
      });
    }
    if (data) {
      const decoded = ConnectionInfo.decodePem(data, what);
      if (Result.isFailure(decoded))
        return yield* Effect.fail(KubeApiError.transport(decoded.failure.message));
      return decoded.success;
    }
    return undefined;
  });

/**
 * A self-contained kubeconfig (JSON, which is YAML) for one connection info: certificates and
 * keys inlined as base64 data, the token as a bearer token, the default namespace in the context.
 *
 * @example
 * ```ts
 * const text = yield* KfcBridge.render(info) // write it anywhere and point KUBECONFIG at it
 * ```
 */
export const render = (info: ConnectionInfo.ConnectionInfo): Effect.Effect<string, KubeApiError> =>
  Effect.gen(function* () {
    const ca = yield* pem(info.caPath, info.caData, "certificate-authority");
    const cert = yield* pem(info.certificatePath, info.certificateData, "client-certificate");
    const key = yield* pem(info.privateKeyPath, info.privateKeyData, "client-key");
    const plainHttp = info.server.toLowerCase().startsWith("http:");
    const cluster: Record<string, unknown> = { server: info.server };
    if (ca !== undefined) cluster["certificate-authority-data"] = b64(ca);
    // KFC refuses http:// servers unless this is set.
    if (info.insecure || plainHttp) cluster["insecure-skip-tls-verify"] = true;
    if (info.tlsServerName) cluster["tls-server-name"] = info.tlsServerName;
    if (info.proxyUrl) cluster["proxy-url"] = info.proxyUrl;
    const user: Record<string, unknown> = {};
    if (info.token) user.token = info.token;
    if (cert !== undefined) user["client-certificate-data"] = b64(cert);
    if (key !== undefined) user["client-key-data"] = b64(key);
    if (info.username && info.password) {
      user.username = info.username;
      user.password = info.password;
    }
    const context: Record<string, unknown> = { cluster: "kopf", user: "kopf" };
    if (info.defaultNamespace) context.namespace = info.defaultNamespace;
    return JSON.stringify(
      {
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "kopf", cluster }],
        users: [{ name: "kopf", user }],
        contexts: [{ name: "kopf", context }],
        "current-context": "kopf",
      },
      null,
      2,
    );
  });

/**
 * What KFC will not honour for these credentials (for the warning).
 *
 * @example
 * ```ts
 * unsupported({ server: "https://h", insecure: true, priority: 0, trustEnv: false }) // ["insecure-skip-tls-verify"]
 * ```
 */
export const unsupported = (info: ConnectionInfo.ConnectionInfo): ReadonlyArray<string> => {
  const https = info.server.toLowerCase().startsWith("https:");
  return [
    ...(https && info.insecure ? ["insecure-skip-tls-verify"] : []),
    ...(https && info.tlsServerName ? ["tls-server-name"] : []),
    ...(info.username && info.password && !info.token ? ["basic auth"] : []),
    ...(info.scheme && info.scheme.toLowerCase() !== "bearer" ? [`the ${info.scheme} scheme`] : []),
  ];
};

/**
 * The bridge service: the kubeconfig path KFC uses, and a way to force a rewrite.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { K8s, kind } from "kubernetes-fluent-client"
 * import { KfcBridge, KubeClient } from "@kopf/client"
 * const live = KfcBridge.layer().pipe(Layer.provideMerge(KubeClient.layer()))
 * // inside handlers: await K8s(kind.ConfigMap).Apply({ metadata: { name: "x", namespace: "ns" }, data: {} })
 * ```
 * @category services
 */
export class KfcBridge extends Context.Service<
  KfcBridge,
  {
    readonly path: string;
    /** Write the current credentials now (done at start and whenever they change). */
    readonly refresh: Effect.Effect<void, KubeApiError | LoginError>;
  }
>()("@kopf/client/KfcBridge") {}

/** Build the bridge; scoped: the file is removed and `$KUBECONFIG` restored on close. */
export const make = Effect.fnUntraced(function* (options: KfcBridgeOptions = {}) {
  const vault = yield* CredentialsVault;
  const path =
    options.path ?? join(yield* Effect.promise(() => mkdtemp(join(tmpdir(), "kopf-kfc-"))), "kubeconfig");
  const previous = process.env.KUBECONFIG;
  let written: string | undefined;

  const refresh = Effect.gen(function* () {
    const item = yield* vault.select;
    const text = yield* render(item.info);
    if (text === written) return;
    yield* Effect.tryPromise({
      try: async () => {
        await writeFile(path, text, { mode: 0o600 });
        await chmod(path, 0o600);
      },
      catch: (cause) =>
        KubeApiError.transport(`Cannot write the kubeconfig for KFC to ${path}: ${String(cause)}`, cause),
    });
    if (written === undefined) {
      const missing = unsupported(item.info);
      if (missing.length > 0) {
        yield* Effect.logWarning(
          `kubernetes-fluent-client will not honour ${missing.join(", ")} of ${ConnectionInfo.describe(item.info)}.`,
        );
      }
    }
    written = text;
    process.env.KUBECONFIG = path;
  });

  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      if (process.env.KUBECONFIG === path) {
        if (previous === undefined) delete process.env.KUBECONFIG;
        else process.env.KUBECONFIG = previous;
      }
      await rm(path, { force: true });
      if (options.path === undefined) await rm(join(path, ".."), { recursive: true, force: true });
    }),
  );
  yield* refresh;
  yield* refresh.pipe(
    Effect.catchCause((cause) => Effect.logWarning("Could not refresh the kubeconfig for KFC.", cause)),
    Effect.repeat(Schedule.spaced(options.interval ?? Duration.seconds(5))),
    Effect.forkScoped,
  );
  return KfcBridge.of({ path, refresh });
});

/** The bridge as a layer over the vault in context. */
export const layer = (
  options: KfcBridgeOptions = {},
): Layer.Layer<KfcBridge, KubeApiError | LoginError, CredentialsVault> =>
  Layer.effect(KfcBridge, make(options));
