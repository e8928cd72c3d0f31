/**
 * One request sent as kubectl sends it: once, with the cluster's credentials, whatever the status
 * (no client-side retries of 5xx answers, which admission webhooks may choose as their codes), and
 * answered as the client got it — status, parsed body, the `Warning` header. For tests that check
 * what a client sees (admission rejections, warnings, dry runs); everything else goes through the
 * `KubeApi`.
 */
import {
  ConnectionInfo,
  CredentialsVault,
  type KubeApiError,
  KubeTransport,
  type LoginError,
  type Method,
} from "@kopf/client";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { KopfRunnerError } from "./KopfRunnerOptions.ts";

/** A response as the client got it. */
export interface Answer {
  readonly status: number;
  /** The parsed JSON body (an object or a `Status`); the text when it is not JSON; absent when empty. */
  readonly body: any;
  /** The `Warning` header, as sent (`299 - "text"`, comma-separated when several). */
  readonly warning: string | undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const parse = (text: string): unknown => {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * Sends one request (the path with its query) on the cluster's transport with its credentials.
 *
 * @example
 * ```ts
 * const answer = yield* Requests.send("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples?dryRun=All", object)
 * // answer.status === 400, answer.body.message === 'admission webhook "…" denied the request: …'
 * ```
 */
export const send = (
  method: Method,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Effect.Effect<Answer, KubeApiError | LoginError, CredentialsVault | KubeTransport> =>
  Effect.gen(function* () {
    const vault = yield* CredentialsVault;
    const transport = yield* KubeTransport;
    const response = yield* vault.withCredentials((item) => {
      const authorization = ConnectionInfo.authorization(item.info);
      return transport.request({
        method,
        path,
        headers: {
          accept: "application/json",
          ...(authorization === undefined ? {} : { authorization }),
          ...(body === undefined ? {} : { "content-type": contentType }),
        },
        body: body === undefined ? undefined : encoder.encode(JSON.stringify(body)),
        connection: item.info,
      });
    });
    return {
      status: response.status,
      body: parse(decoder.decode(response.body)),
      warning: response.headers.warning,
    };
  });

/**
 * {@link send} on a runner's cluster: its context must hold the transport and the credentials
 * vault (every cluster `Clusters` builds does; a bare `KubeApi` layer does not, and gets a
 * `KopfRunnerError` saying so).
 *
 * @example
 * ```ts
 * const answer = await Effect.runPromise(Requests.sendOn(cluster.context, "GET", "/api/v1/namespaces"))
 * ```
 */
export const sendOn = <R>(
  context: Context.Context<R>,
  method: Method,
  path: string,
  body?: unknown,
  contentType?: string,
): Effect.Effect<Answer, KubeApiError | LoginError | KopfRunnerError> =>
  Effect.suspend((): Effect.Effect<Answer, KubeApiError | LoginError | KopfRunnerError> => {
    const services = context as unknown as Context.Context<CredentialsVault | KubeTransport>;
    if (
      Option.isNone(Context.getOption(services, CredentialsVault)) ||
      Option.isNone(Context.getOption(services, KubeTransport))
    ) {
      return Effect.fail(
        new KopfRunnerError({
          reason: "NotFound",
          message:
            "request() needs the cluster's transport and credentials vault; every cluster of Clusters has them, a bare KubeApi layer does not",
        }),
      );
    }
    return Effect.provideContext(send(method, path, body, contentType), services);
  });
