/**
 * Listening for a webhook server: binding and closing a Node server as effects, the timeouts that
 * bound how long a client may take to send a request, and the answers to what Node's HTTP parser
 * refuses before a request exists.
 */
import type { Server } from "node:http";
import type { Server as HttpsServer } from "node:https";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import * as Effect from "effect/Effect";
import { WebhookServerError } from "../../WebhookServerProtocol.ts";

/** Listens on the port (0: a free one) and address; answers the port bound. */
export const listen = (server: Server | HttpsServer, port: number, addr: string | undefined) =>
  Effect.callback<number, WebhookServerError>((resume) => {
    const onError = (error: Error) =>
      resume(
        Effect.fail(
          new WebhookServerError({
            reason: "Listen",
            message: `Cannot listen on ${addr ?? "*"}:${port}: ${error.message}`,
            cause: error,
          }),
        ),
      );
    server.once("error", onError);
    server.listen(port, addr, () => {
      server.off("error", onError);
      const address = server.address();
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port));
    });
  });

/** Stops listening and ends every open connection. */
export const close = (server: Server | HttpsServer) =>
  Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void));
    server.closeAllConnections();
  });

/** The Node server options that bound how long a client may take to send a request. */
export const serverTimeouts = (seconds: number) => {
  const ms = Math.max(1, Math.round(seconds * 1000));
  return {
    requestTimeout: ms,
    headersTimeout: ms,
    // How often the timeouts are checked (Node's default, 30 s, would let them overrun a lot).
    connectionsCheckingInterval: Math.min(1000, ms),
  };
};

/**
 * Answers what Node's HTTP parser refused before a request existed (408 for a client too slow
 * to send it, 431 for oversized headers, 400 otherwise) and closes the connection.
 */
export const refuseMalformed = (error: Error & { code?: string }, socket: Duplex): void => {
  const status =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? "408 Request Timeout"
      : error.code === "HPE_HEADER_OVERFLOW"
        ? "431 Request Header Fields Too Large"
        : "400 Bad Request";
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  // Closed once the answer is written (a TLS socket says goodbye first).
  if (socket instanceof Socket) socket.destroySoon();
  else socket.end();
};
