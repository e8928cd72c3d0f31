/**
 * Raw HTTPS to an API server, logged in from a kubeconfig with @kopf/client's kubeconfig login:
 * plain requests that return the status, media type and text of the response as they are (no
 * retries, no parsing, no error mapping: the suite compares exactly what the server said), and
 * streaming watches whose events are gathered line by line until collected.
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import { ConnectionInfo, KubeConfigLogin } from "@kopf/client";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import type { Method, WatchEvent } from "./Interaction.ts";

/** Why a connection or request failed (not an HTTP error status: those are outcomes). */
export class ConnectionError extends Data.TaggedError("ConnectionError")<{
  readonly reason: "Login" | "Credentials" | "Network" | "Timeout";
  readonly message: string;
}> {}

/** A raw response. */
export interface RawResponse {
  readonly status: number;
  readonly mediaType: string;
  readonly text: string;
  /** The texts of its `Warning` headers (`299 - "text"`), in order. */
  readonly warnings: ReadonlyArray<string>;
}

const WARNING = /\d{3} \S+ "((?:[^"\\]|\\.)*)"(?: "[^"]*")?/g;

/**
 * The texts of `Warning` header values, however they were framed (one header line per warning,
 * as kube-apiserver writes them, or one comma-joined line): RFC 7234 warning-values in order,
 * quoted-pair escapes undone.
 *
 * @example
 * ```ts
 * warningTexts(['299 - "a", 299 - "b \\"c\\""']) // ["a", 'b "c"']
 * ```
 */
export const warningTexts = (values: ReadonlyArray<string>): ReadonlyArray<string> =>
  values.flatMap((value) => [...value.matchAll(WARNING)].map((m) => (m[1] ?? "").replace(/\\(.)/g, "$1")));

/** A watch in progress: its events so far, how it ended (if it did), and a way to stop it. */
export interface OpenWatch {
  readonly status: () => number | undefined;
  readonly mediaType: () => string;
  readonly events: () => ReadonlyArray<WatchEvent>;
  /** The raw body when the server answered with a non-200 status instead of a stream. */
  readonly errorText: () => string | undefined;
  readonly ended: () => boolean;
  readonly close: () => void;
}

/** A connection to one API server. */
export interface Connection {
  readonly server: string;
  readonly request: (
    method: Method,
    path: string,
    body?: { readonly text: string; readonly contentType: string },
    accept?: string,
  ) => Effect.Effect<RawResponse, ConnectionError>;
  /** Opens a watch (with the given Accept header, default `application/json`). */
  readonly watch: (path: string, accept?: string) => OpenWatch;
  readonly close: () => void;
}

const USER_AGENT = "kopf-conformance";
const REQUEST_TIMEOUT_MS = 30_000;

const pemOf = (data: string | undefined, path: string | undefined, field: string) =>
  Effect.gen(function* () {
    if (data !== undefined) {
      const decoded = ConnectionInfo.decodePem(data, field);
      if (Result.isFailure(decoded)) {
        return yield* new ConnectionError({ reason: "Credentials", message: decoded.failure.message });
      }
      return decoded.success;
    }
    if (path === undefined) return undefined;
    return yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (error) =>
        new ConnectionError({
          reason: "Credentials",
          message: `cannot read ${field} ${path}: ${String(error)}`,
        }),
    });
  });

const mediaTypeOf = (response: IncomingMessage): string =>
  (response.headers["content-type"] ?? "").split(";")[0]!.trim();

/**
 * Opens a connection from a kubeconfig file (its current context).
 *
 * @example
 * ```ts
 * const connection = yield* Connection.fromKubeconfig("/tmp/kubeconfig")
 * const response = yield* connection.request("GET", "/version")
 * ```
 */
export const fromKubeconfig = (path: string): Effect.Effect<Connection, ConnectionError> =>
  Effect.gen(function* () {
    const info = yield* KubeConfigLogin.make({ paths: path }).pipe(
      Effect.mapError((error) => new ConnectionError({ reason: "Login", message: error.message })),
    );
    const ca = yield* pemOf(info.caData, info.caPath, "certificate-authority");
    const cert = yield* pemOf(info.certificateData, info.certificatePath, "client-certificate");
    const key = yield* pemOf(info.privateKeyData, info.privateKeyPath, "client-key");
    const agent = new Agent({
      keepAlive: true,
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
      rejectUnauthorized: info.insecure !== true,
      ...(info.tlsServerName === undefined ? {} : { servername: info.tlsServerName }),
    });
    const authorization = ConnectionInfo.authorization(info);
    const base = info.server.replace(/\/+$/, "");
    const headers = (extra: Record<string, string>) => ({
      "user-agent": USER_AGENT,
      accept: "application/json",
      ...(authorization === undefined ? {} : { authorization }),
      ...extra,
    });

    const request: Connection["request"] = (method, target, body, accept) =>
      Effect.callback<RawResponse, ConnectionError>((resume) => {
        const req = httpsRequest(
          `${base}${target}`,
          {
            method,
            agent,
            // Explicit length: Node frames neither chunked nor by length for DELETE by default,
            // which would leave a DELETE's body to be read as the next request on the connection.
            headers: headers({
              ...(accept === undefined ? {} : { accept }),
              ...(body === undefined
                ? {}
                : {
                    "content-type": body.contentType,
                    "content-length": String(Buffer.byteLength(body.text)),
                  }),
            }),
            timeout: REQUEST_TIMEOUT_MS,
          },
          (response) => {
            const chunks: Array<Buffer> = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () =>
              resume(
                Effect.succeed({
                  status: response.statusCode ?? 0,
                  mediaType: mediaTypeOf(response),
                  text: Buffer.concat(chunks).toString("utf8"),
                  warnings: warningTexts(response.headersDistinct.warning ?? []),
                }),
              ),
            );
            response.on("error", (error) =>
              resume(
                Effect.fail(
                  new ConnectionError({
                    reason: "Network",
                    message: `${method} ${target}: ${error.message}`,
                  }),
                ),
              ),
            );
          },
        );
        req.on("timeout", () => {
          req.destroy();
          resume(
            Effect.fail(
              new ConnectionError({ reason: "Timeout", message: `${method} ${target}: no answer in 30s` }),
            ),
          );
        });
        req.on("error", (error) =>
          resume(
            Effect.fail(
              new ConnectionError({ reason: "Network", message: `${method} ${target}: ${error.message}` }),
            ),
          ),
        );
        req.end(body?.text);
        return Effect.sync(() => req.destroy());
      });

    const watch = (target: string, accept?: string): OpenWatch => {
      let status: number | undefined;
      let mediaType = "";
      let errorText: string | undefined;
      let ended = false;
      const events: Array<WatchEvent> = [];
      const req = httpsRequest(
        `${base}${target}`,
        { method: "GET", agent, headers: headers(accept === undefined ? {} : { accept }) },
        (response) => {
          status = response.statusCode ?? 0;
          mediaType = mediaTypeOf(response);
          let buffer = "";
          let rejected = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            if (status !== 200) {
              rejected += chunk;
              return;
            }
            buffer += chunk;
            let newline = buffer.indexOf("\n");
            while (newline >= 0) {
              const line = buffer.slice(0, newline).trim();
              buffer = buffer.slice(newline + 1);
              if (line !== "") {
                try {
                  events.push(JSON.parse(line) as WatchEvent);
                } catch {
                  events.push({ type: "UNPARSEABLE", object: line });
                }
              }
              newline = buffer.indexOf("\n");
            }
          });
          response.on("end", () => {
            if (status !== 200) errorText = rejected;
            ended = true;
          });
          response.on("error", () => {
            ended = true;
          });
        },
      );
      req.on("error", () => {
        ended = true;
      });
      req.end();
      return {
        status: () => status,
        mediaType: () => mediaType,
        events: () => events,
        errorText: () => errorText,
        ended: () => ended,
        close: () => req.destroy(),
      };
    };

    return { server: base, request, watch, close: () => agent.destroy() };
  });
