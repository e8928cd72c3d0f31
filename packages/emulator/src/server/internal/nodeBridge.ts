/**
 * The bridge between Node's HTTP objects and the emulator's `ApiRequest`/`ApiResponse`: reading a
 * request body up to a limit (refusing larger ones early, without buffering them), collecting
 * lower-cased headers, the client certificate of the request's TLS connection, and writing
 * complete or streaming responses (one flushed chunk per stream element, honouring back-pressure).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import type { ApiResponse } from "../../api/Emulator.ts";
import type * as Authentication from "../Authentication.ts";
import type { CompleteResponse } from "./status.ts";

/** The outcome of reading a request body. */
export type BodyRead =
  | { readonly _tag: "Read"; readonly body: Uint8Array | undefined }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Aborted" };

/**
 * Reads the body of `request`, stopping as soon as it is known to exceed `limit` bytes, and calls
 * `done` once with the outcome (a plain callback: this is the per-request hot path).
 */
export const readBody = (
  request: IncomingMessage,
  limit: number,
  done: (outcome: BodyRead) => void,
): void => {
  const declared = request.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    done({ _tag: "TooLarge" });
    return;
  }
  const chunks: Array<Buffer> = [];
  let size = 0;
  let finished = false;
  const finish = (outcome: BodyRead) => {
    if (finished) return;
    finished = true;
    request.off("data", onData);
    request.off("end", onEnd);
    request.off("error", onError);
    request.off("aborted", onError);
    done(outcome);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      request.pause();
      finish({ _tag: "TooLarge" });
    } else chunks.push(chunk);
  };
  const onEnd = () =>
    finish({
      _tag: "Read",
      body: size === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
    });
  const onError = () => finish({ _tag: "Aborted" });
  request.on("data", onData);
  request.on("end", onEnd);
  request.on("error", onError);
  request.on("aborted", onError);
};

/** Writes a complete response at once. */
export const writeComplete = (
  response: ServerResponse,
  apiResponse: CompleteResponse,
  extraHeaders: Readonly<Record<string, string>> = {},
): void => {
  if (response.destroyed) return;
  response.writeHead(apiResponse.status, {
    ...apiResponse.headers,
    ...extraHeaders,
    "content-length": String(apiResponse.body.byteLength),
  });
  response.end(apiResponse.body);
};

/**
 * A request target made only of characters that URL parsing leaves as they are (no dot segments,
 * no percent-encoding in the path, no fragment): its path and query are split without it.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?$/;

/**
 * The path and query of a request target, as `new URL(target, base)` gives them (which every
 * request paid for; the usual target takes a plain split).
 *
 * @example
 * targetOf("/api/v1/namespaces?watch=true") // { path: "/api/v1/namespaces", query: URLSearchParams { watch: "true" } }
 */
export const targetOf = (target: string): { readonly path: string; readonly query: URLSearchParams } => {
  if (PLAIN_TARGET.test(target) && !target.includes("/.") && !target.startsWith("//")) {
    const at = target.indexOf("?");
    return at === -1
      ? { path: target, query: new URLSearchParams() }
      : { path: target.slice(0, at), query: new URLSearchParams(target.slice(at + 1)) };
  }
  const url = new URL(target, "http://emulator");
  return { path: url.pathname, query: url.searchParams };
};

/** The request's headers with lower-case names, repeated headers joined by ", ". */
export const headersOf = (request: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
};

const waitForDrain = (response: ServerResponse): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const onDone = () => {
      response.off("drain", onDone);
      response.off("close", onDone);
      resume(Effect.void);
    };
    response.on("drain", onDone);
    response.on("close", onDone);
  });

/**
 * Writes an `ApiResponse`. Streaming bodies are sent chunked, each element written (and flushed)
 * as it comes; the effect ends when the stream ends or the client goes away.
 */
export const writeResponse = (
  response: ServerResponse,
  apiResponse: ApiResponse,
  extraHeaders: Readonly<Record<string, string>> = {},
): Effect.Effect<void> => {
  if (response.destroyed) return Effect.void;
  if (apiResponse._tag === "Complete")
    return Effect.sync(() => writeComplete(response, apiResponse, extraHeaders));
  return Effect.sync(() => {
    response.writeHead(apiResponse.status, { ...apiResponse.headers, ...extraHeaders });
    response.flushHeaders();
  }).pipe(
    Effect.andThen(
      Stream.runForEach(apiResponse.body, (chunk) =>
        response.destroyed ? Effect.interrupt : response.write(chunk) ? Effect.void : waitForDrain(response),
      ),
    ),
    Effect.andThen(Effect.sync(() => response.end())),
  );
};

const peerCache = new WeakMap<Socket, Authentication.PeerCertificate | undefined>();

/**
 * The client certificate the TLS connection of `socket` was verified with (its subject's common
 * name and organizations), read once per connection; `undefined` when the client sent none that
 * the server's certificate authority signed.
 */
export const peerOf = (socket: Socket): Authentication.PeerCertificate | undefined => {
  const tlsSocket = socket as TLSSocket;
  if (tlsSocket.authorized !== true) return undefined;
  if (peerCache.has(socket)) return peerCache.get(socket);
  const subject = tlsSocket.getPeerCertificate().subject as unknown as Record<
    string,
    string | Array<string> | undefined
  >;
  const cn = subject?.CN;
  const o = subject?.O;
  const peer: Authentication.PeerCertificate = {
    authorized: true,
    commonName: Array.isArray(cn) ? cn[0] : cn,
    organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
  };
  peerCache.set(socket, peer);
  return peer;
};
