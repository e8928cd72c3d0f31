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
import * as Effect from "effect/Effect";

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
