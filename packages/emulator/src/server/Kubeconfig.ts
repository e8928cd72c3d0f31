/**
 * Kubeconfig files pointing at a running emulator, in the form `kubectl` and
 * kubernetes-fluent-client read as they are: the cluster with the emulator's CA inline
 * (`certificate-authority-data`), or `insecure-skip-tls-verify: true` for plain HTTP; the user with
 * a bearer token or an inline client certificate.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { stringify } from "yaml";

/** What a kubeconfig for the emulator contains. */
export interface KubeconfigOptions {
  readonly server: string;
  /** The CA certificate (PEM) for an HTTPS server; omit for plain HTTP. */
  readonly caPem?: string;
  /** A bearer token; defaults to `kopf-emulator` when no client certificate is given. */
  readonly token?: string;
  /** A client certificate (PEM) and its key instead of a token. */
  readonly clientCertificate?: { readonly certPem: string; readonly keyPem: string };
  /** The context's default namespace. */
  readonly namespace?: string;
  /** The name of the cluster, user and context entries (default `kopf-emulator`). */
  readonly name?: string;
}

/** The kubeconfig file could not be written. */
export class KubeconfigError extends Data.TaggedError("KubeconfigError")<{
  readonly reason: "Write";
  readonly path: string;
  readonly message: string;
}> {}

const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/**
 * Renders a kubeconfig as YAML text.
 *
 * @example
 * ```ts
 * Kubeconfig.render({ server: "https://127.0.0.1:6443", caPem, token: "t" });
 * ```
 */
export const render = (options: KubeconfigOptions): string => {
  const name = options.name ?? "kopf-emulator";
  const cluster =
    options.caPem === undefined
      ? { server: options.server, "insecure-skip-tls-verify": true }
      : { server: options.server, "certificate-authority-data": base64(options.caPem) };
  const user =
    options.clientCertificate === undefined
      ? { token: options.token ?? "kopf-emulator" }
      : {
          "client-certificate-data": base64(options.clientCertificate.certPem),
          "client-key-data": base64(options.clientCertificate.keyPem),
          ...(options.token === undefined ? {} : { token: options.token }),
        };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace ?? "default" } }],
    "current-context": name,
    preferences: {},
  });
};

/** Writes a kubeconfig file (mode 0600), creating its directory if needed. */
export const write = (path: string, options: KubeconfigOptions): Effect.Effect<void, KubeconfigError> =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, render(options), { mode: 0o600 });
    },
    catch: (cause) =>
      new KubeconfigError({ reason: "Write", path, message: `cannot write ${path}: ${String(cause)}` }),
  });
