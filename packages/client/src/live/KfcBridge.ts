/**
 * Makes kubernetes-fluent-client's `K8s()` reach the same cluster with the same credentials as
 * the operator, without touching the process's environment or writing credentials to disk.
 *
 * KFC has no injectable configuration: every call does `new KubeConfig().loadFromDefault()` of
 * `@kubernetes/client-node`. The bridge hooks that one method (on the client-node that KFC
 * itself imports): while a bridge is open, `loadFromDefault()` loads the vault's current
 * credentials (its top-priority item, certificates inlined) instead of `$KUBECONFIG`. The
 * rendered configuration is refreshed when the credentials change (re-login, token rotation,
 * expiry). On scope close the hook is removed (the last bridge restores the original method).
 * `$KUBECONFIG` is never changed, so the operator's own kubeconfig login keeps reading the
 * user's files, exec plugins and contexts.
 *
 * The hook applies to everything in the process that calls client-node's `loadFromDefault()`
 * while the bridge is open (the previous design, which pointed `$KUBECONFIG` at a private file,
 * had the same reach and also leaked into child processes).
 *
 * Caveats (KFC's): for https servers KFC ignores `insecure-skip-tls-verify` and
 * `tls-server-name`, and it drops basic auth; the bridge logs a warning when the credentials
 * need those. KFC cannot reach the in-process emulator (it opens sockets): run the emulator's
 * HTTPS server and log in with its kubeconfig instead.
 *
 * Edge code: files (certificates named by path), and the loaded client-node module.
 */
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { KubeConfig } from "@kubernetes/client-node";
import * as Context from "effect/Context";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import * as Schedule from "effect/Schedule";
import * as ConnectionInfo from "../ConnectionInfo.ts";
import { KubeApiError } from "../KubeApiError.ts";
import type { LoginError } from "../LoginError.ts";
import { CredentialsVault } from "../Vault.ts";

/** @category models */
export interface KfcBridgeOptions {
  /**
   * Also write the rendered kubeconfig to this file (mode 0600), e.g. for tools started by
   * handlers; default: no file.
   */
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
 * The bridge service: the configuration KFC now gets, and a way to force a refresh.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
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
    /** The file written as well, when `options.path` was given. */
    readonly path: string | undefined;
    /** The kubeconfig (JSON) that `loadFromDefault()` loads now. */
    readonly kubeconfig: Effect.Effect<string | undefined>;
    /** Render the current credentials now (done at start and whenever they change). */
    readonly refresh: Effect.Effect<void, KubeApiError | LoginError>;
  }
>()("@kopf/client/KfcBridge") {}

/** The open bridges, latest last: the latest one's configuration is what KFC gets. */
const bridges: Array<{ text: string | undefined }> = [];
let restore: (() => void) | undefined;

type LoadFromDefault = KubeConfig["loadFromDefault"];

/**
 * The `KubeConfig` class of the client-node that KFC imports (resolved from KFC's own location),
 * or `undefined` when kubernetes-fluent-client is not installed (it is an optional peer): then
 * there is nothing to bridge and no hook is installed.
 */
const kfcKubeConfig = Effect.promise(async () => {
  let clientNode: string;
  try {
    const kfc = createRequire(import.meta.url).resolve("kubernetes-fluent-client");
    clientNode = createRequire(kfc).resolve("@kubernetes/client-node");
  } catch {
    return undefined;
  }
  const module = (await import(pathToFileURL(clientNode).href)) as typeof import("@kubernetes/client-node");
  return module.KubeConfig;
});

/** Install the hook once; it serves the latest open bridge and falls back to the original. */
const install = (KubeConfigClass: { prototype: KubeConfig }) => {
  if (restore !== undefined) return;
  const prototype = KubeConfigClass.prototype;
  const original = prototype.loadFromDefault;
  const hooked: LoadFromDefault = function (this: KubeConfig, ...args: Parameters<LoadFromDefault>) {
    const text = bridges.at(-1)?.text;
    if (text === undefined) return original.apply(this, args);
    this.loadFromString(text);
  };
  prototype.loadFromDefault = hooked;
  restore = () => {
    prototype.loadFromDefault = original;
    restore = undefined;
  };
};

/** Build the bridge; scoped: the hook is removed on close (and the file, if any). */
export const make = Effect.fnUntraced(function* (options: KfcBridgeOptions = {}) {
  const vault = yield* CredentialsVault;
  const KubeConfigClass = yield* kfcKubeConfig;
  const entry: { text: string | undefined } = { text: undefined };
  const path = options.path;

  const refresh = Effect.gen(function* () {
    const item = yield* vault.select;
    const text = yield* render(item.info);
    if (text === entry.text) return;
    if (path !== undefined) {
      yield* Effect.tryPromise({
        try: async () => {
          await writeFile(path, text, { mode: 0o600 });
          await chmod(path, 0o600);
        },
        catch: (cause) =>
          KubeApiError.transport(`Cannot write the kubeconfig for KFC to ${path}: ${String(cause)}`, cause),
      });
    }
    if (entry.text === undefined) {
      const missing = unsupported(item.info);
      if (missing.length > 0) {
        yield* Effect.logWarning(
          `kubernetes-fluent-client will not honour ${missing.join(", ")} of ${ConnectionInfo.describe(item.info)}.`,
        );
      }
    }
    entry.text = text;
  });

  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      const index = bridges.indexOf(entry);
      if (index >= 0) bridges.splice(index, 1);
      if (bridges.length === 0) restore?.();
      if (path !== undefined) await rm(path, { force: true });
    }),
  );
  yield* refresh;
  if (KubeConfigClass !== undefined) install(KubeConfigClass);
  bridges.push(entry);
  yield* refresh.pipe(
    // Expected failures (a failing login, an unreadable certificate file) are one line each.
    Effect.catch((error) => Effect.logWarning(`Could not refresh the kubeconfig for KFC: ${error.message}`)),
    Effect.catchCause((cause) => Effect.logWarning("Could not refresh the kubeconfig for KFC.", cause)),
    Effect.repeat(Schedule.spaced(options.interval ?? Duration.seconds(5))),
    Effect.forkScoped,
  );
  return KfcBridge.of({ path, kubeconfig: Effect.sync(() => entry.text), refresh });
});

/** The bridge as a layer over the vault in context. */
export const layer = (
  options: KfcBridgeOptions = {},
): Layer.Layer<KfcBridge, KubeApiError | LoginError, CredentialsVault> =>
  Layer.effect(KfcBridge, make(options));
