/**
 * The HTTPS webhook server: the self-signed certificate (self-issued CA, usages,
 * SANs, expiry), the reported client config and cadump, serving real requests over TLS verified
 * with the reported CA bundle, given certificate files, insecure mode, the HTTP errors of bad
 * requests, the depth limit of JSON, and a fuzz-style barrage of malformed requests after which
 * the server still answers (the hostile barrage is `HostileRequests.test.ts`).
 */
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import { AdmissionError, Registry } from "@kopf/registry";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Queue from "effect/Queue";
import * as Stream from "effect/Stream";
import * as fc from "fast-check";
import { Certificates, type ClientConfig, Endpoint, Serving, WebhookServer } from "../../src/index.ts";
import { RESOURCE, review, SPEC } from "../fixtures/reviews.ts";

interface Reply {
  readonly status: number;
  readonly text: string;
}

const post = (
  url: string,
  body: string | Buffer,
  options: {
    ca?: string;
    method?: string;
    headers?: Record<string, string>;
    cert?: string;
    key?: string;
  } = {},
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = target.protocol === "https:" ? httpsRequest : httpRequest;
    const req = request(
      target,
      {
        method: options.method ?? "POST",
        headers: { "content-type": "application/json", ...options.headers },
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        ...(options.cert === undefined ? {} : { cert: options.cert, key: options.key }),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });

const registry = () => {
  const r = Registry.make();
  r.on.validate(SPEC, { id: "check" }, ({ spec, warnings }: any) => {
    warnings.push("checked");
    if (spec.field === "bad") throw new AdmissionError("The field is bad.", { code: 422 });
  });
  return r;
};

/** Starts a server in the test's scope and answers its first client config. */
const started = (server: ReturnType<typeof WebhookServer.make>, r = registry()) =>
  Effect.gen(function* () {
    const fn = yield* Serving.make({ registry: r, resources: () => [RESOURCE], memo: {} });
    const first = yield* Deferred.make<ClientConfig>();
    yield* Effect.forkScoped(
      Stream.runForEach(server.serve(fn), (config) => Deferred.succeed(first, config)).pipe(Effect.orDie),
    );
    return yield* Deferred.await(first);
  });

const caOf = (config: ClientConfig) => Buffer.from(config.caBundle ?? "", "base64").toString("utf8");

describe("Certificates.selfSigned", () => {
  it.live("is a self-issued CA for the server's names, valid for a year", () =>
    Effect.gen(function* () {
      const names = Endpoint.certificateNames({
        host: "host.k3d.internal",
        addr: "0.0.0.0",
        extraSans: ["10.9.8.7"],
      });
      const made = yield* Certificates.selfSigned(names);
      const cert = new X509Certificate(made.certPem);
      assert.isTrue(cert.ca);
      assert.isTrue(cert.checkIssued(cert));
      assert.isTrue(cert.verify(cert.publicKey));
      assert.strictEqual(cert.subject, "CN=host.k3d.internal");
      assert.strictEqual(cert.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
      assert.deepStrictEqual(
        cert.subjectAltName?.split(", ").sort(),
        [
          "DNS:10.9.8.7",
          "DNS:127.0.0.1",
          "DNS:host.k3d.internal",
          "IP Address:10.9.8.7",
          "IP Address:127.0.0.1",
        ].sort(),
      );
      assert.deepStrictEqual([...(cert.keyUsage ?? [])].sort(), ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
      assert.isNotNull(cert.checkHost("host.k3d.internal"));
      assert.isNotNull(cert.checkIP("127.0.0.1"));
      const now = Date.now();
      const from = Date.parse(cert.validFrom);
      const to = Date.parse(cert.validTo);
      assert.isTrue(from <= now && now - from < 2 * 3600_000);
      assert.isTrue(Math.abs(to - now - 365 * 86400_000) < 3600_000);
      assert.strictEqual(made.notAfter, to);
    }),
  );
});

describe("WebhookServer", () => {
  it.live("serves reviews over HTTPS verified with the reported CA bundle; cadump holds it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "kopf-admission-"));
        const cadump = join(dir, "ca.pem");
        const config = yield* started(
          WebhookServer.make({
            addr: "127.0.0.1",
            path: "/hooks",
            cadump,
            cadata: "ignored for self-signed",
          }),
        );
        assert.match(config.url ?? "", /^https:\/\/127\.0\.0\.1:\d+\/hooks$/);
        const ca = caOf(config);
        assert.strictEqual(readFileSync(cadump, "utf8"), ca);
        const good = yield* Effect.promise(() =>
          post(`${config.url}/check`, JSON.stringify(review()), { ca }),
        );
        assert.strictEqual(good.status, 200);
        assert.deepStrictEqual(JSON.parse(good.text), {
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          response: { uid: "uid1", allowed: true, warnings: ["checked"] },
        });
        const bad = yield* Effect.promise(() =>
          post(`${config.url}/check`, JSON.stringify(review({ object: { spec: { field: "bad" } } })), { ca }),
        );
        assert.deepStrictEqual(JSON.parse(bad.text).response.status, {
          message: "The field is bad.",
          code: 422,
        });
        // Without the CA bundle, the client refuses the server.
        const untrusted = yield* Effect.promise(() =>
          post(`${config.url}/check`, "{}").then(
            () => "connected",
            (error: NodeJS.ErrnoException) => error.code ?? "error",
          ),
        );
        assert.notStrictEqual(untrusted, "connected");
      }),
    ),
  );

  it.live("uses given certificate files (and reports the certificate as the CA bundle)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const made = yield* Certificates.selfSigned(Endpoint.certificateNames({ addr: "127.0.0.1" }));
        const dir = mkdtempSync(join(tmpdir(), "kopf-admission-"));
        writeFileSync(join(dir, "tls.crt"), made.certPem);
        writeFileSync(join(dir, "tls.key"), made.keyPem);
        const config = yield* started(
          WebhookServer.make({
            addr: "127.0.0.1",
            certfile: join(dir, "tls.crt"),
            pkeyfile: join(dir, "tls.key"),
          }),
        );
        assert.strictEqual(caOf(config), made.certPem);
        const reply = yield* Effect.promise(() =>
          post(`${config.url}/check`, JSON.stringify(review()), { ca: made.certPem }),
        );
        assert.strictEqual(reply.status, 200);
      }),
    ),
  );

  it.live("insecure mode serves plain HTTP without a CA bundle; host classes set the reported host", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const config = yield* started(WebhookServer.make({ addr: "127.0.0.1", insecure: true }));
        assert.isUndefined(config.caBundle);
        assert.match(config.url ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
        const reply = yield* Effect.promise(() => post(`${config.url}/check`, JSON.stringify(review())));
        assert.strictEqual(reply.status, 200);
        const k3d = yield* started(WebhookServer.WebhookK3dServer({ addr: "127.0.0.1", insecure: true }));
        assert.match(k3d.url ?? "", /^http:\/\/host\.k3d\.internal:\d+$/);
      }),
    ),
  );

  it.live("answers bad requests with clear HTTP errors", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const config = yield* started(
          WebhookServer.make({ addr: "127.0.0.1", path: "/hooks", maxBodyBytes: 4096 }),
        );
        const ca = caOf(config);
        const origin = new URL(config.url ?? "").origin;
        const cases: ReadonlyArray<[string, string, Record<string, string>, number, string]> = [
          [`${config.url}/check`, "not json", {}, 400, "not JSON"],
          [`${config.url}/check`, JSON.stringify({ kind: "Pod" }), {}, 400, "kind: expected AdmissionReview"],
          [`${config.url}/check`, JSON.stringify(review({}, { apiVersion: "v1" })), {}, 400, "apiVersion"],
          [`${origin}/elsewhere`, JSON.stringify(review()), {}, 404, "Not found"],
          [`${config.url}/check`, "x".repeat(5000), {}, 413, "larger than 4096"],
          [
            `${config.url}/check`,
            JSON.stringify(review({ resource: { group: "x", version: "v1", resource: "ys" } })),
            {},
            404,
            "The specified resource has no handlers",
          ],
        ];
        for (const [url, body, headers, status, text] of cases) {
          const reply = yield* Effect.promise(() => post(url, body, { ca, headers }));
          assert.strictEqual(reply.status, status, `${url} ${body.slice(0, 40)}`);
          assert.include(reply.text, text);
        }
        const get = yield* Effect.promise(() => post(`${config.url}/check`, "", { ca, method: "GET" }));
        assert.strictEqual(get.status, 405);
        // The root path: an empty webhook id matches no handler, so the request is allowed.
        const root = yield* Effect.promise(() => post(`${config.url}`, JSON.stringify(review()), { ca }));
        assert.deepStrictEqual(JSON.parse(root.text).response, { uid: "uid1", allowed: true });
      }),
    ),
  );

  it.live(
    "serves JSON nested as deep as maxJsonDepth, and refuses deeper JSON with 400 before parsing it",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const config = yield* started(WebhookServer.make({ addr: "127.0.0.1" }));
          const ca = caOf(config);
          // The review, its request and the object are three levels; the spec fills the rest.
          const nested = (levels: number) =>
            JSON.stringify(review({ object: { spec: { field: "@" } } })).replace(
              '"@"',
              `${"[".repeat(levels)}${"]".repeat(levels)}`,
            );
          const limit = WebhookServer.DEFAULT_LIMITS.maxJsonDepth;
          const deepest = yield* Effect.promise(() => post(`${config.url}/check`, nested(limit - 4), { ca }));
          assert.strictEqual(deepest.status, 200, deepest.text);
          assert.isTrue(JSON.parse(deepest.text).response.allowed);
          const deeper = yield* Effect.promise(() => post(`${config.url}/check`, nested(limit - 3), { ca }));
          assert.strictEqual(deeper.status, 400);
          assert.include(deeper.text, `deeper than ${limit} levels`);
        }),
      ),
  );

  it.live(
    "keeps answering after a barrage of malformed requests",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const config = yield* started(WebhookServer.make({ addr: "127.0.0.1", maxBodyBytes: 64 * 1024 }));
          const ca = caOf(config);
          const bodies = fc.sample(
            fc.oneof(
              fc.string(),
              fc.jsonValue().map((v) => JSON.stringify(v)),
              fc.jsonValue().map((request) => JSON.stringify({ ...review(), request })),
              fc
                .dictionary(
                  fc.constantFrom(
                    "uid",
                    "operation",
                    "resource",
                    "userInfo",
                    "object",
                    "oldObject",
                    "dryRun",
                    "subResource",
                  ),
                  fc.jsonValue(),
                )
                .map((fields) => JSON.stringify(review(fields))),
              fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
            ),
            { numRuns: 300, seed: 42 },
          );
          const statuses = yield* Effect.forEach(
            bodies,
            (body) => Effect.promise(() => post(`${config.url}/check`, body, { ca }).then((r) => r.status)),
            { concurrency: 16 },
          );
          for (const status of statuses) assert.include([200, 400, 404, 409, 413], status);
          // Raw garbage on the socket (not even TLS) is dropped without harm.
          const port = Number(new URL(config.url ?? "").port);
          yield* Effect.forEach(
            fc.sample(fc.uint8Array({ minLength: 1, maxLength: 512 }), { numRuns: 20, seed: 7 }),
            (bytes) =>
              Effect.promise(
                () =>
                  new Promise<void>((resolve) => {
                    const socket = connect(port, "127.0.0.1", () => socket.end(Buffer.from(bytes)));
                    socket.on("error", () => resolve());
                    socket.on("close", () => resolve());
                    socket.setTimeout(2000, () => socket.destroy());
                  }),
              ),
            { concurrency: 5 },
          );
          const reply = yield* Effect.promise(() =>
            post(`${config.url}/check`, JSON.stringify(review()), { ca }),
          );
          assert.strictEqual(reply.status, 200);
          assert.isTrue(JSON.parse(reply.text).response.allowed);
        }),
      ),
    120_000,
  );

  it.live("re-reads the certificate files and reports the new CA bundle when they change", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const names = Endpoint.certificateNames({ addr: "127.0.0.1" });
        const first = yield* Certificates.selfSigned(names);
        const second = yield* Certificates.selfSigned(names);
        const dir = mkdtempSync(join(tmpdir(), "kopf-admission-"));
        const certfile = join(dir, "tls.crt");
        const pkeyfile = join(dir, "tls.key");
        writeFileSync(certfile, first.certPem);
        writeFileSync(pkeyfile, first.keyPem);
        const server = WebhookServer.make({ addr: "127.0.0.1", certfile, pkeyfile, fileCheckInterval: 0.1 });
        const fn = yield* Serving.make({ registry: registry(), resources: () => [RESOURCE], memo: {} });
        const configs = yield* Queue.unbounded<ClientConfig>();
        yield* Effect.forkScoped(
          Stream.runForEach(server.serve(fn), (config) => Queue.offer(configs, config)).pipe(Effect.orDie),
        );
        const before = yield* Queue.take(configs);
        assert.strictEqual(caOf(before), first.certPem);
        writeFileSync(certfile, second.certPem);
        writeFileSync(pkeyfile, second.keyPem);
        const after = yield* Queue.take(configs);
        assert.strictEqual(caOf(after), second.certPem);
        assert.strictEqual(after.url, before.url);
        const reply = yield* Effect.promise(() =>
          post(`${after.url}/check`, JSON.stringify(review()), { ca: second.certPem }),
        );
        assert.strictEqual(reply.status, 200);
      }),
    ),
  );

  it.live.each(["verifyCadata", "verifyCapath"] as const)(
    "verifies client certificates (CAs by %s) and passes the peer to handlers as sslpeer",
    (source) =>
      Effect.scoped(
        Effect.gen(function* () {
          const client = yield* Certificates.selfSigned({
            commonName: "tester",
            dnsNames: ["tester"],
            ipAddresses: [],
          });
          let seen: any;
          const r = Registry.make();
          r.on.validate(SPEC, { id: "peer" }, ({ sslpeer }: any) => {
            seen = sslpeer;
          });
          const dir = mkdtempSync(join(tmpdir(), "kopf-admission-cas-"));
          writeFileSync(join(dir, "client-ca.pem"), client.certPem);
          writeFileSync(join(dir, "README"), "not a certificate");
          const cas = source === "verifyCadata" ? { verifyCadata: client.certPem } : { verifyCapath: dir };
          const config = yield* started(
            WebhookServer.make({ addr: "127.0.0.1", verifyMode: "required", ...cas }),
            r,
          );
          const ca = caOf(config);
          const reply = yield* Effect.promise(() =>
            post(`${config.url}/peer`, JSON.stringify(review()), {
              ca,
              cert: client.certPem,
              key: client.keyPem,
            }),
          );
          assert.strictEqual(reply.status, 200);
          assert.strictEqual(seen?.subject?.CN, "tester");
          const anonymous = yield* Effect.promise(() =>
            post(`${config.url}/peer`, JSON.stringify(review()), { ca }).then(
              (r) => `answered ${r.status}`,
              () => "refused",
            ),
          );
          assert.strictEqual(anonymous, "refused");
        }),
      ),
  );
});
