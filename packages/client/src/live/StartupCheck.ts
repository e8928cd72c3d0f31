/**
 * The start-up check of the built-in logins: log in once and reach the server once, before the
 * operator starts, so that credentials that can never work end the operator with one line
 * instead of a retry loop. Fatal: no kubeconfig or service account, a kubeconfig that cannot be
 * read or parsed, an unknown context, broken certificate data, a server whose certificate is
 * not trusted. Everything else (an unreachable server, a failing exec plugin, a 401) may pass,
 * so it is left to the running operator, which retries as Kopf does.
 *
 * The check logs nothing. Give it and the operator's client the same login (`options.login`, e.g.
 * one `KubeClient.defaultLogin`): exec plugins' credentials are then cached between the two.
 *
 * Edge code: reads files, runs plugins, opens a connection.
 */
import { OperatorSettings, Settings } from "@kopf/settings";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as References from "effect/References";
import * as Result from "effect/Result";
import { KubeApi } from "../KubeApi.ts";
import type { LoginError } from "../LoginError.ts";
import { type Credentials, CredentialsVault } from "../Vault.ts";
import { defaultLogin, type LiveOptions } from "./KubeClient.ts";
import * as NodeTransport from "./NodeTransport.ts";

/**
 * Why the operator cannot start; `message` is the one line to print.
 *
 * @example
 * ```ts
 * new StartupError({ reason: "UntrustedCertificate", message: "https://h:6443: ..." })
 * ```
 * @category errors
 */
export class StartupError extends Data.TaggedError("StartupError")<{
  readonly reason: "NoConfiguration" | "InvalidConfiguration" | "UntrustedCertificate";
  readonly message: string;
}> {}

/** The TLS verification failures of Node's `tls` (a certificate that will never be accepted). */
const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_SIGNATURE_FAILURE",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * The TLS verification code somewhere in an error's cause chain, if it is one of an untrusted
 * certificate.
 *
 * @example
 * ```ts
 * untrustedCertificate({ cause: { code: "SELF_SIGNED_CERT_IN_CHAIN" } }) // "SELF_SIGNED_CERT_IN_CHAIN"
 * untrustedCertificate({ cause: { code: "ECONNREFUSED" } })              // undefined
 * ```
 */
export const untrustedCertificate = (error: unknown): string | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && UNTRUSTED.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provideService(References.MinimumLogLevel, "None"));

const noRetries = Settings.make({
  networking: { errorBackoffs: [], requestTimeout: 30, connectTimeout: 10 },
});

/** One request to the server with the top-priority credentials, no retries, nothing logged. */
const probe = (credentials: Credentials, options: LiveOptions): Effect.Effect<void, StartupError> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const exit = yield* Effect.exit(api.raw({ method: "GET", path: "/version" }));
    if (exit._tag === "Success") return;
    const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error;
    const code = untrustedCertificate(failure);
    if (code === undefined) return;
    const vault = yield* CredentialsVault;
    const [item] = yield* vault.items;
    return yield* new StartupError({
      reason: "UntrustedCertificate",
      message:
        `${item === undefined ? "the server" : item.info.server}: the server's certificate is not trusted (${code}); ` +
        "check the certificate-authority (and tls-server-name) of the kubeconfig.",
    });
  }).pipe(
    Effect.provide(
      KubeApi.layer(options.client).pipe(
        Layer.provideMerge(
          Layer.mergeAll(CredentialsVault.layerStatic(credentials), NodeTransport.layer(options.transport)),
        ),
      ),
    ),
    Effect.provideService(OperatorSettings, Result.getOrThrow(noRetries)),
  );

/**
 * Run the start-up check: fail with the one line to print when the credentials can never work.
 *
 * @example
 * ```ts
 * const options = { kubeconfig: { paths: "/tmp/kubeconfig" } }
 * const login = KubeClient.defaultLogin(options)
 * yield* StartupCheck.run({ ...options, login })
 * const client = KubeClient.layer({ ...options, login })
 * ```
 */
export const run = (options: LiveOptions = {}): Effect.Effect<void, StartupError> =>
  quiet(
    Effect.gen(function* () {
      const login = yield* Effect.result(options.login ?? defaultLogin(options));
      if (Result.isFailure(login)) {
        const error: LoginError = login.failure;
        if (error.reason === "NoConfiguration" || error.reason === "InvalidConfiguration") {
          return yield* new StartupError({ reason: error.reason, message: error.message });
        }
        return;
      }
      yield* probe(login.success, options);
    }),
  );
