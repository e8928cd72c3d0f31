/**
 * The emulator's in-process `KubeTransport`: requests go straight to `KubeEmulator.handle`, with
 * no sockets, so operator tests run the real `KubeApi` (auth headers, retries, watch decoding)
 * against the emulated API server without a network.
 *
 * Bearer tokens are checked as the emulator's HTTPS server checks them (any token, or the one
 * required), so re-login on 401 can be tested in-process too; a `FaultInjector` in the context
 * (the same one the server uses) injects failures and latency around `handle`.
 */

import type { ClientOptions, Credentials, LoginError, TransportRequest } from "@kopf/client";
import { ConnectionInfo, CredentialsVault, KubeApi, KubeTransport } from "@kopf/client";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import { type ApiRequest, type ApiResponse, KubeEmulator } from "../api/Emulator.ts";
import * as Status from "../api/Status.ts";
import { FaultInjector } from "../control/FaultInjector.ts";
import * as Authentication from "../server/Authentication.ts";

/** How the in-process transport authenticates. */
export interface EmulatorTransportOptions {
  /** Accept only this bearer token (others get 401, like `EmulatorServer`'s `token`). */
  readonly requiredToken?: string | undefined;
}

/** The server URL put in in-process credentials (never dialled). */
export const IN_PROCESS_SERVER = "https://emulator.in-process";

const unauthorizedBody = new TextEncoder().encode(
  JSON.stringify(Status.make(401, "Unauthorized", "Unauthorized").status),
);

const toApiRequest = (request: TransportRequest, user: Authentication.UserInfo): ApiRequest => {
  const index = request.path.indexOf("?");
  const path = index === -1 ? request.path : request.path.slice(0, index);
  const query = new URLSearchParams(index === -1 ? "" : request.path.slice(index + 1));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  return { method: request.method, path, query, headers, body: request.body, user };
};

/**
 * Build the transport over the `KubeEmulator` in context.
 *
 * @example
 * ```ts
 * import * as Layer from "effect/Layer";
 * import { KubeEmulator, EmulatorTransport } from "@kopf/emulator"
 * const transport = EmulatorTransport.layer().pipe(Layer.provide(KubeEmulator.layer()))
 * ```
 */
export const make = Effect.fnUntraced(function* (options: EmulatorTransportOptions = {}) {
  const emulator = yield* KubeEmulator;
  const faults = yield* Effect.serviceOption(FaultInjector);

  const answer = (request: TransportRequest): Effect.Effect<ApiResponse> => {
    const user = Authentication.authenticate({
      authorization: request.headers.authorization,
      peer: undefined,
      requiredToken: options.requiredToken,
    });
    if (Result.isFailure(user)) {
      return Effect.succeed({
        _tag: "Complete",
        status: 401,
        headers: { "content-type": "application/json" },
        body: unauthorizedBody,
      });
    }
    const apiRequest = toApiRequest(request, user.success);
    return Option.match(faults, {
      onNone: () => emulator.handle(apiRequest),
      onSome: (injector) => injector.around(apiRequest, emulator.handle),
    });
  };

  return KubeTransport.of({
    request: (request) =>
      Effect.flatMap(answer(request), (response) =>
        response._tag === "Complete"
          ? Effect.succeed({ status: response.status, headers: response.headers, body: response.body })
          : Effect.map(Stream.mkUint8Array(response.body), (body) => ({
              status: response.status,
              headers: response.headers,
              body,
            })),
      ),
    stream: (request) =>
      Effect.map(answer(request), (response) => ({
        status: response.status,
        headers: response.headers,
        body: response._tag === "Complete" ? Stream.make(response.body) : response.body,
      })),
  });
});

/** The in-process transport as a layer (needs a `KubeEmulator`; uses a `FaultInjector` if present). */
export const layer = (
  options: EmulatorTransportOptions = {},
): Layer.Layer<KubeTransport, never, KubeEmulator> => Layer.effect(KubeTransport, make(options));

/** Credentials for the in-process emulator: a token for {@link IN_PROCESS_SERVER}. */
export const credentials = (token = "emulator-token", defaultNamespace = "default"): Credentials => {
  const info = ConnectionInfo.make({ server: IN_PROCESS_SERVER, token, defaultNamespace });
  return { emulator: Result.getOrThrow(info) };
};

/**
 * A complete in-process client: `KubeApi`, its vault (fixed credentials unless a `login` is
 * given) and the transport, over the `KubeEmulator` in context.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
 * import { KubeApi } from "@kopf/client"
 * import { EmulatorTransport, KubeEmulator } from "@kopf/emulator"
 * const client = EmulatorTransport.client().pipe(Layer.provide(KubeEmulator.layer()))
 * const program = Effect.flatMap(KubeApi, (api) => api.raw({ method: "GET", path: "/version" })).pipe(Effect.provide(client))
 * ```
 */
export const client = (
  options: EmulatorTransportOptions & {
    readonly login?: Effect.Effect<Credentials, LoginError> | undefined;
    readonly credentials?: Credentials | undefined;
    readonly client?: ClientOptions | undefined;
  } = {},
): Layer.Layer<KubeApi | CredentialsVault | KubeTransport, never, KubeEmulator> => {
  const vault = CredentialsVault.layer({
    initial: options.credentials ?? (options.login ? undefined : credentials(options.requiredToken)),
    login: options.login,
  });
  return KubeApi.layer(options.client).pipe(Layer.provideMerge(Layer.mergeAll(vault, layer(options))));
};
