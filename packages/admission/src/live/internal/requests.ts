/**
 * Answering one HTTP request of a webhook server: route `POST {path}/{id}`, read the body up to
 * a limit, decode the AdmissionReview, call the webhook function, and answer its document — or
 * a clear error (400 bad JSON or review, 404 unknown path or resource, 405 other methods, 409
 * ambiguous resource, 413 oversized body, 500 anything unexpected). Never throws.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { Cause, type Effect, Exit, Result } from "effect";
import * as Conversion from "../../Conversion.ts";
import * as Review from "../../Review.ts";
import type { WebhookFn } from "../../Serving.ts";

/** Routing and limits of a server. */
export interface Routing {
  /** The path prefix without a trailing slash (`""` for the root). */
  readonly path: string;
  readonly maxBodyBytes: number;
}

/** The webhook id of a request path, or `undefined` when the path is not the server's. */
export const webhookOf = (routing: Routing, pathname: string): string | undefined => {
  if (pathname === routing.path || pathname === `${routing.path}/`) return "";
  if (!pathname.startsWith(`${routing.path}/`)) return undefined;
  const rest = pathname.slice(routing.path.length + 1);
  const decoded = Result.try(() => decodeURIComponent(rest));
  return Result.isSuccess(decoded) ? decoded.success : undefined;
};

const answer = (res: ServerResponse, code: number, body: unknown): void => {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === "string" ? `${body}\n` : JSON.stringify(body);
  res.writeHead(code, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
};

const readBody = (req: IncomingMessage, limit: number): Promise<Result.Result<Buffer, string>> =>
  new Promise((resolve) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (Number.isFinite(declared) && declared > limit) {
      resolve(Result.fail(`The request body is larger than ${limit} bytes.`));
      req.resume();
      return;
    }
    const chunks: Array<Buffer> = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        resolve(Result.fail(`The request body is larger than ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!done) resolve(Result.succeed(Buffer.concat(chunks)));
      done = true;
    });
    req.on("error", (error) => {
      if (!done) resolve(Result.fail(`The request could not be read: ${error.message}`));
      done = true;
    });
  });

const headersOf = (req: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
};

const sslpeerOf = (req: IncomingMessage): Record<string, unknown> => {
  const socket = req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== "function") return {};
  const peer = socket.getPeerCertificate();
  if (peer === null || typeof peer !== "object" || Object.keys(peer).length === 0) return {};
  return {
    subject: peer.subject,
    issuer: peer.issuer,
    subjectAltName: peer.subjectaltname,
    serialNumber: peer.serialNumber,
    notBefore: peer.valid_from,
    notAfter: peer.valid_to,
    fingerprint256: peer.fingerprint256,
  };
};

/**
 * Handles one request with `fn`, run by `run` (the server's Effect runtime).
 */
export const handle = async (
  routing: Routing,
  fn: WebhookFn,
  run: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> => {
  try {
    const pathname = new URL(req.url ?? "/", "http://server").pathname;
    const webhook = webhookOf(routing, pathname);
    if (webhook === undefined) return answer(res, 404, `Not found: ${pathname}`);
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return answer(res, 405, `Method not allowed: ${req.method ?? "?"}; admission reviews are POSTed.`);
    }
    const body = await readBody(req, routing.maxBodyBytes);
    if (Result.isFailure(body)) return answer(res, 413, body.failure);
    const parsed = Result.try(() => JSON.parse(body.success.toString("utf8")) as unknown);
    if (Result.isFailure(parsed))
      return answer(res, 400, `The request body is not JSON: ${String(parsed.failure)}`);
    if (Conversion.isReview(parsed.success) && fn.convert !== undefined) {
      const converted = fn.convert(webhook, parsed.success);
      return answer(res, converted.status, converted.body);
    }
    const review = Review.decode(parsed.success);
    if (Result.isFailure(review)) return answer(res, 400, review.failure.message);
    const exit = await run(
      fn({ review: review.success, webhook, headers: headersOf(req), sslpeer: sslpeerOf(req) }),
    );
    if (Exit.isSuccess(exit)) return answer(res, 200, exit.value);
    const error = Cause.findErrorOption(exit.cause);
    if (error._tag === "Some") {
      return answer(res, error.value.reason === "UnknownResource" ? 404 : 409, error.value.message);
    }
    return answer(res, 500, `The admission request could not be served: ${Cause.pretty(exit.cause)}`);
  } catch (error) {
    answer(res, 500, `The admission request could not be served: ${String(error)}`);
  }
};
