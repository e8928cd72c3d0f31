// Test support for admission: AdmissionRequest and StoreReader builders, and HTTPS webhook
// servers (certificates from the emulator's CA) answering with a function of the review.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import * as Effect from "effect/Effect";
import type { AdmissionRequest, StoreReader } from "../../src/api/Admission.ts";
import * as CertificateAuthority from "../../src/tls/CertificateAuthority.ts";

export const admissionRequest = (overrides: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  operation: "CREATE",
  kind: { group: "kopf.dev", version: "v1", kind: "KopfExample" },
  resource: { group: "kopf.dev", version: "v1", resource: "kopfexamples" },
  subResource: "",
  requestKind: { group: "kopf.dev", version: "v1", kind: "KopfExample" },
  requestResource: { group: "kopf.dev", version: "v1", resource: "kopfexamples" },
  requestSubResource: "",
  name: "kopf-example-1",
  namespace: "ns1",
  object: { metadata: { name: "kopf-example-1", namespace: "ns1", labels: { app: "x" } } },
  oldObject: undefined,
  options: undefined,
  dryRun: false,
  userInfo: { username: "system:admin", groups: ["system:masters"] },
  namespaced: true,
  ...overrides,
});

/** A StoreReader over fixed webhook configurations, services and namespace labels. */
export const storeReader = (options: {
  readonly mutating?: ReadonlyArray<unknown>;
  readonly validating?: ReadonlyArray<unknown>;
  readonly services?: ReadonlyArray<string>;
  readonly namespaces?: Record<string, Record<string, string>>;
}): StoreReader => ({
  get: (group, resource, namespace, name) =>
    group === "" && resource === "services" && (options.services ?? []).includes(`${namespace}/${name}`)
      ? { metadata: { name, namespace } }
      : undefined,
  list: (group, resource) =>
    group !== "admissionregistration.k8s.io"
      ? []
      : resource === "mutatingwebhookconfigurations"
        ? (options.mutating ?? [])
        : resource === "validatingwebhookconfigurations"
          ? (options.validating ?? [])
          : [],
  namespaceLabels: (namespace) => options.namespaces?.[namespace],
});

export interface WebhookServer {
  readonly url: string;
  readonly caBundle: string;
  /** Every AdmissionReview received, in order. */
  readonly reviews: Array<Record<string, unknown>>;
  readonly paths: Array<string>;
  /** The request headers of each call, in order. */
  readonly headers: Array<Readonly<Record<string, unknown>>>;
}

/** Starts an HTTPS webhook server for the scope; `answer` maps a review to the response body. */
export const webhookServer = (
  answer: (review: Record<string, any>, path: string) => unknown | Promise<unknown>,
) =>
  Effect.gen(function* () {
    const ca = yield* CertificateAuthority.make();
    const serving = yield* ca.issueServing();
    const reviews: Array<Record<string, unknown>> = [];
    const paths: Array<string> = [];
    const headers: Array<Readonly<Record<string, unknown>>> = [];
    const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      const chunks: Array<Buffer> = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", async () => {
        const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, any>;
        reviews.push(review);
        paths.push(req.url ?? "");
        headers.push(req.headers);
        const body = await answer(review, req.url ?? "");
        if (res.destroyed) return;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
    });
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void));
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections();
          server.close(() => resume(Effect.void));
        }),
    );
    const port = (server.address() as AddressInfo).port;
    return {
      url: `https://127.0.0.1:${port}`,
      caBundle: Buffer.from(ca.certPem).toString("base64"),
      reviews,
      paths,
      headers,
    } satisfies WebhookServer;
  });

/** An allowing response to `review`, with optional extras merged into `response`. */
export const respond = (review: Record<string, any>, extra: Record<string, unknown> = {}) => ({
  apiVersion: review.apiVersion,
  kind: "AdmissionReview",
  response: { uid: review.request.uid, allowed: true, ...extra },
});

/** A base64 JSON patch. */
export const patchOf = (ops: ReadonlyArray<unknown>): string =>
  Buffer.from(JSON.stringify(ops)).toString("base64");
