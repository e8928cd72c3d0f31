/**
 * A small admission webhook server for the conformance suite: HTTPS on 127.0.0.1 with its own CA,
 * answering AdmissionReview v1 as a Kopf admission server would. `/validate` denies objects
 * labelled `deny=yes` (code 403, with a warning) and admits the rest; `/mutate` adds the
 * annotation `conformance/mutated: "yes"` with a JSON patch. Both API servers call it, so their
 * webhook calling (rules, selectors, dry runs, patches, denials, failures) can be compared.
 */
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { CertificateAuthority } from "@kopf/emulator";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import * as Echo from "./sequences/internal/echo.ts";

/** A running webhook server. */
export interface WebhookServer extends Echo.Echoing {
  /** The base URL, e.g. `https://127.0.0.1:40321`. */
  readonly url: string;
  /** The CA bundle (base64 PEM) for `clientConfig.caBundle`. */
  readonly caBundle: string;
}

/** Why the webhook server could not start. */
export class WebhookServerError extends Data.TaggedError("WebhookServerError")<{
  readonly reason: "Tls" | "Listen";
  readonly message: string;
}> {}

type Review = {
  request?: {
    uid?: string;
    object?: { metadata?: { labels?: Record<string, string>; annotations?: unknown } };
  };
};

/** The AdmissionReview response for a request to `path`. */
export const answer = (path: string, review: Review): unknown => {
  if (Echo.handles(path)) return Echo.answer(path, review);
  const uid = review.request?.uid ?? "";
  const metadata = review.request?.object?.metadata;
  const base = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" };
  if (path === "/validate") {
    return metadata?.labels?.deny === "yes"
      ? {
          ...base,
          response: {
            uid,
            allowed: false,
            status: { code: 403, message: "denied by the conformance webhook" },
            warnings: ["conformance webhook says no"],
          },
        }
      : { ...base, response: { uid, allowed: true } };
  }
  const patch =
    metadata?.annotations === undefined || metadata.annotations === null
      ? [{ op: "add", path: "/metadata/annotations", value: { "conformance/mutated": "yes" } }]
      : [{ op: "add", path: "/metadata/annotations/conformance~1mutated", value: "yes" }];
  return {
    ...base,
    response: {
      uid,
      allowed: true,
      patchType: "JSONPatch",
      patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
    },
  };
};

/**
 * Starts the webhook server for the lifetime of the scope.
 *
 * @example
 * ```ts
 * const webhook = yield* WebhookServer.start
 * // clientConfig: { url: `${webhook.url}/validate`, caBundle: webhook.caBundle }
 * ```
 */
export const start: Effect.Effect<WebhookServer, WebhookServerError, Scope.Scope> = Effect.gen(function* () {
  const ca = yield* CertificateAuthority.make().pipe(
    Effect.mapError((error) => new WebhookServerError({ reason: "Tls", message: error.message })),
  );
  const serving = yield* ca
    .issueServing()
    .pipe(Effect.mapError((error) => new WebhookServerError({ reason: "Tls", message: error.message })));
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let review: Review = {};
      try {
        review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const path = (req.url ?? "").split("?")[0] ?? "";
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer(path, review)));
    });
  });
  const port = yield* Effect.acquireRelease(
    Effect.callback<number, WebhookServerError>((resume) => {
      server.once("error", (error) =>
        resume(Effect.fail(new WebhookServerError({ reason: "Listen", message: error.message }))),
      );
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)));
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections();
        server.close(() => resume(Effect.void));
      }),
  );
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    echoes: true,
  };
});
