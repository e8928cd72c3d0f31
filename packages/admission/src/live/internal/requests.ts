/**
 * Answering one HTTP request of a webhook server, with untrusted input kept cheap: route
 * `POST {path}/{id}`; refuse a body declared larger than the limit before reading any of it, and
 * stop reading one that grows past it (413, connection closed); wait for room in the server's
 * budget of body bytes in flight, so a barrage of large requests is served a few at a time
 * instead of all being held in memory at once (429 after waiting the request timeout); refuse over-deep JSON by a scan of the bytes
 * before parsing (400); decode the AdmissionReview (400 naming the field); call the webhook
 * function and answer its document — or a clear error (404 unknown path or resource, 405 other
 * methods, 409 ambiguous resource, 500 anything unexpected). Every text taken from the request
 * and written back or logged is bounded. Never throws.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import type * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Result from "effect/Result";
import type * as Semaphore from "effect/Semaphore";
import * as Bounded from "../../Bounded.ts";
import * as Conversion from "../../Conversion.ts";
import * as JsonDepth from "../../JsonDepth.ts";
import * as Review from "../../Review.ts";
import type { WebhookFn } from "../../Serving.ts";

/** Routing and limits of a server. */
export interface Routing {
  /** The path prefix without a trailing slash (`""` for the root). */
  readonly path: string;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
}

/** The room for request bodies in flight, shared by all requests of a server. */
export interface Budget {
  readonly semaphore: Semaphore.Semaphore;
  /** Its size in bytes: no request takes more, so a single large one is never starved. */
  readonly bytes: number;
  /** How long a request may wait for room (then: 429). */
  readonly wait: Duration.Duration;
}

/** What a request is charged at least (the envelope, the handlers' state). */
const MIN_CHARGE = 16 * 1024;

/** The webhook id of a request path, or `undefined` when the path is not the server's. */
export const webhookOf = (routing: Routing, pathname: string): string | undefined => {
  if (pathname === routing.path || pathname === `${routing.path}/`) return "";
  if (!pathname.startsWith(`${routing.path}/`)) return undefined;
  const rest = pathname.slice(routing.path.length + 1);
  const decoded = Result.try(() => decodeURIComponent(rest));
  return Result.isSuccess(decoded) ? decoded.success : undefined;
};

/** A request refused with an HTTP status. */
class Refused extends Data.TaggedError("Refused")<{
  readonly status: number;
  readonly message: string;
  /** Close the connection after answering (the body was not read to its end). */
  readonly close?: boolean;
}> {}

const answer = (res: ServerResponse, code: number, body: unknown, close = false): void => {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === "string" ? `${body}\n` : JSON.stringify(body);
  res.writeHead(code, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    "content-length": Buffer.byteLength(text),
    ...(close ? { connection: "close" } : {}),
  });
  res.end(text);
};

const tooLarge = (limit: number) =>
  new Refused({ status: 413, message: `The request body is larger than ${limit} bytes.`, close: true });

/** The declared body length, if the request states one. */
const declaredLength = (req: IncomingMessage): number | undefined => {
  const header = req.headers["content-length"];
  const length = header === undefined ? Number.NaN : Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
};

/**
 * Reads the body up to `limit` bytes — straight into one buffer when its length is declared, so
 * it is held once, not twice — and stops listening (keeping nothing) when interrupted.
 */
const readBody = (req: IncomingMessage, limit: number, declared: number | undefined) =>
  Effect.callback<Buffer, Refused>((resume) => {
    const whole = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
    const chunks: Array<Buffer> = [];
    let size = 0;
    const finish = (outcome: Effect.Effect<Buffer, Refused>) => {
      detach();
      resume(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(Effect.fail(tooLarge(limit)));
        return;
      }
      if (whole === undefined) chunks.push(chunk);
      else if (size <= whole.length) chunk.copy(whole, size - chunk.length);
    };
    const onEnd = () =>
      finish(Effect.succeed(whole === undefined ? Buffer.concat(chunks, size) : whole.subarray(0, size)));
    const onAbort = () =>
      finish(
        Effect.fail(
          new Refused({ status: 400, message: "The request was not sent to its end.", close: true }),
        ),
      );
    const onError = (error: Error) =>
      finish(
        Effect.fail(
          new Refused({
            status: 400,
            message: `The request could not be read: ${Bounded.text(error.message, Bounded.MAX_QUOTE)}`,
            close: true,
          }),
        ),
      );
    const detach = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("aborted", onAbort);
      req.off("error", onError);
      // Whatever is left is discarded as it arrives, never stored.
      req.resume();
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("aborted", onAbort);
    req.once("error", onError);
    return Effect.sync(detach);
  });

const parse = (body: Buffer, maxDepth: number) =>
  Effect.gen(function* () {
    if (JsonDepth.exceeds(body, maxDepth)) {
      return yield* new Refused({
        status: 400,
        message: `The request body nests JSON deeper than ${maxDepth} levels.`,
      });
    }
    const parsed = Result.try(() => JSON.parse(body.toString("utf8")) as unknown);
    if (Result.isFailure(parsed)) {
      return yield* new Refused({
        status: 400,
        message: `The request body is not JSON: ${Bounded.text(String(parsed.failure), Bounded.MAX_QUOTE * 4)}`,
      });
    }
    return parsed.success;
  });

const decode = (value: unknown) => {
  const review = Review.decode(value);
  return Result.isSuccess(review)
    ? Effect.succeed(review.success)
    : Effect.fail(
        new Refused({
          status: 400,
          message: `The request body is not a valid AdmissionReview: ${review.failure.message}`,
        }),
      );
};

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

/** Routes, reads, decodes and serves one request; fails with the HTTP refusal. */
const serve = (routing: Routing, fn: WebhookFn, budget: Budget, req: IncomingMessage) =>
  Effect.gen(function* () {
    const pathname = yield* Effect.try({
      try: () => new URL(req.url ?? "/", "http://server").pathname,
      catch: () => new Refused({ status: 400, message: "The request path is not a valid URL path." }),
    });
    const webhook = webhookOf(routing, pathname);
    if (webhook === undefined) {
      return yield* new Refused({
        status: 404,
        message: `Not found: ${Bounded.text(pathname, Bounded.MAX_NAME)}`,
      });
    }
    if (req.method !== "POST") {
      return yield* new Refused({
        status: 405,
        message: `Method not allowed: ${Bounded.text(req.method ?? "?", 16)}; admission reviews are POSTed.`,
      });
    }
    const declared = declaredLength(req);
    if (declared !== undefined && declared > routing.maxBodyBytes)
      return yield* tooLarge(routing.maxBodyBytes);
    const charge = Math.min(budget.bytes, Math.max(MIN_CHARGE, declared ?? routing.maxBodyBytes));
    return yield* Effect.scoped(
      Effect.gen(function* () {
        yield* budget.semaphore.takeScoped(charge).pipe(
          Effect.timeoutOrElse({
            duration: budget.wait,
            orElse: () =>
              Effect.fail(
                new Refused({
                  status: 429,
                  message: "Too many request bodies in flight; the request waited too long for room.",
                  close: true,
                }),
              ),
          }),
        );
        const body = yield* readBody(req, routing.maxBodyBytes, declared);
        const parsed = yield* parse(body, routing.maxJsonDepth);
        // ConversionReviews of typed resources come to the same server (their own paths).
        if (Conversion.isReview(parsed) && fn.convert !== undefined) return fn.convert(webhook, parsed);
        const review = yield* decode(parsed);
        const response = yield* fn({
          review,
          webhook,
          headers: headersOf(req),
          sslpeer: sslpeerOf(req),
        }).pipe(
          Effect.mapError(
            (error) =>
              new Refused({
                status: error.reason === "UnknownResource" ? 404 : 409,
                message: error.message,
              }),
          ),
        );
        return { status: 200, body: response };
      }),
    );
  });

/**
 * Handles one request with `fn`: answers the review's response, or the refusal (logged at
 * debug level, bounded), or 500 for a defect.
 */
export const handle = (
  routing: Routing,
  fn: WebhookFn,
  budget: Budget,
  req: IncomingMessage,
  res: ServerResponse,
): Effect.Effect<void> =>
  serve(routing, fn, budget, req).pipe(
    Effect.exit,
    Effect.flatMap((exit) => {
      if (Exit.isSuccess(exit)) return Effect.sync(() => answer(res, exit.value.status, exit.value.body));
      const refusal = Cause.findErrorOption(exit.cause);
      if (refusal._tag === "Some") {
        const { status, message, close } = refusal.value;
        if (status === 405) res.setHeader("allow", "POST");
        return Effect.logDebug(`Refused an admission request with ${status}: ${message}`).pipe(
          Effect.andThen(Effect.sync(() => answer(res, status, message, close === true))),
        );
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return Effect.void;
      const text = Bounded.text(Cause.pretty(exit.cause), Bounded.MAX_MESSAGE);
      return Effect.logError(`The admission request could not be served: ${text}`).pipe(
        Effect.andThen(
          Effect.sync(() => answer(res, 500, `The admission request could not be served: ${text}`)),
        ),
      );
    }),
  );
