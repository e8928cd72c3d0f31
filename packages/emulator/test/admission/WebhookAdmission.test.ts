// Covers the webhook-calling admission hook against real HTTPS webhook servers: the review sent
// (path, ?timeout, uid, object, userInfo), mutating patches applied in sequence, denials with the
// webhook's message and code, warnings, failurePolicy Fail/Ignore for unreachable URLs, service
// references, untrusted certificates and timeouts, dry runs and sideEffects, and validating
// webhooks called concurrently.
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as WebhookAdmission from "../../src/admission/WebhookAdmission.ts";
import { admissionRequest, patchOf, respond, storeReader, webhookServer } from "./support.ts";

const rules = [
  {
    operations: ["CREATE", "UPDATE"],
    apiGroups: ["kopf.dev"],
    apiVersions: ["v1"],
    resources: ["kopfexamples"],
  },
];
const webhook = (
  name: string,
  url: string,
  caBundle: string | undefined,
  extra: Record<string, unknown> = {},
) => ({
  name,
  rules,
  clientConfig: { url, ...(caBundle === undefined ? {} : { caBundle }) },
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  ...extra,
});
const configuration = (name: string, webhooks: ReadonlyArray<unknown>) => ({ metadata: { name }, webhooks });

describe("WebhookAdmission", () => {
  it.live("sends an AdmissionReview v1 and applies mutating patches in order", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review, path) =>
          path.startsWith("/first")
            ? respond(review, {
                patchType: "JSONPatch",
                patch: patchOf([{ op: "add", path: "/metadata/labels/first", value: "1" }]),
                warnings: ["w1"],
              })
            : respond(review, {
                patchType: "JSONPatch",
                patch: patchOf([
                  {
                    op: "add",
                    path: "/metadata/labels/second",
                    value: review.request.object.metadata.labels.first,
                  },
                ]),
              }),
        );
        const store = storeReader({
          mutating: [
            configuration("b", [webhook("second.kopf.dev", `${server.url}/second`, server.caBundle)]),
            configuration("a", [
              webhook("first.kopf.dev", `${server.url}/first`, server.caBundle, { timeoutSeconds: 5 }),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
        assert.deepStrictEqual(decision, {
          _tag: "Allow",
          patches: [
            { op: "add", path: "/metadata/labels/first", value: "1" },
            { op: "add", path: "/metadata/labels/second", value: "1" },
          ],
          warnings: ["w1"],
        });
        assert.deepStrictEqual(server.paths, ["/first?timeout=5s", "/second?timeout=10s"]);
        // As kube-apiserver's admission client sends them.
        assert.strictEqual(server.headers[0]?.["user-agent"], "kube-apiserver-admission");
        assert.strictEqual(server.headers[0]?.accept, "application/json, */*");
        const first = server.reviews[0] as Record<string, any>;
        assert.strictEqual(first.apiVersion, "admission.k8s.io/v1");
        assert.strictEqual(first.kind, "AdmissionReview");
        assert.match(first.request.uid, /^[0-9a-f-]{36}$/);
        assert.strictEqual(first.request.operation, "CREATE");
        assert.deepStrictEqual(first.request.userInfo, {
          username: "system:admin",
          groups: ["system:masters"],
        });
        assert.deepStrictEqual(first.request.object.metadata.labels, { app: "x" });
      }),
    ),
  );

  it.live("reinvokes an IfNeeded webhook once when a later webhook changed the object", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review, path) => {
          const labels = review.request.object.metadata.labels ?? {};
          if (path.startsWith("/first")) {
            // counts what it sees: reinvoked, it sees the label the second webhook added
            return labels.second === undefined
              ? respond(review)
              : respond(review, {
                  patchType: "JSONPatch",
                  patch: patchOf([{ op: "add", path: "/metadata/labels/first", value: "saw-second" }]),
                });
          }
          return labels.second === undefined
            ? respond(review, {
                patchType: "JSONPatch",
                patch: patchOf([{ op: "add", path: "/metadata/labels/second", value: "1" }]),
              })
            : respond(review);
        });
        const store = storeReader({
          mutating: [
            configuration("a", [
              webhook("first.kopf.dev", `${server.url}/first`, server.caBundle, {
                reinvocationPolicy: "IfNeeded",
              }),
            ]),
            configuration("b", [
              webhook("second.kopf.dev", `${server.url}/second`, server.caBundle, {
                reinvocationPolicy: "IfNeeded",
              }),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
        assert.deepStrictEqual(decision, {
          _tag: "Allow",
          patches: [
            { op: "add", path: "/metadata/labels/second", value: "1" },
            { op: "add", path: "/metadata/labels/first", value: "saw-second" },
          ],
          warnings: [],
        });
        // one reinvocation round, in order: first (second changed the object after it), then second
        // (the reinvoked first changed it after second); nobody is reinvoked twice
        assert.deepStrictEqual(
          server.paths.map((p) => p.split("?")[0]),
          ["/first", "/second", "/first", "/second"],
        );
      }),
    ),
  );

  it.live("does not reinvoke webhooks with reinvocationPolicy Never (the default)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review, path) =>
          path.startsWith("/second")
            ? respond(review, {
                patchType: "JSONPatch",
                patch: patchOf([{ op: "add", path: "/metadata/labels/second", value: "1" }]),
              })
            : respond(review),
        );
        const store = storeReader({
          mutating: [
            configuration("a", [webhook("first.kopf.dev", `${server.url}/first`, server.caBundle)]),
            configuration("b", [webhook("second.kopf.dev", `${server.url}/second`, server.caBundle)]),
          ],
        });
        yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
        assert.deepStrictEqual(
          server.paths.map((p) => p.split("?")[0]),
          ["/first", "/second"],
        );
      }),
    ),
  );

  it.live("warns that matchConditions are not evaluated", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) => respond(review));
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("cel.kopf.dev", `${server.url}/v`, server.caBundle, {
                matchConditions: [
                  { name: "not-system", expression: "!request.userInfo.username.startsWith('system:')" },
                ],
              }),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.deepStrictEqual(decision, {
          _tag: "Allow",
          patches: [],
          warnings: [
            'the emulator does not evaluate matchConditions: webhook "cel.kopf.dev" was called as if they all matched',
          ],
        });
        assert.strictEqual(server.reviews.length, 1);
      }),
    ),
  );

  it.live("denies with the webhook's message and code", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) =>
          respond(review, { allowed: false, status: { code: 422, message: "spec.field must be positive" } }),
        );
        const store = storeReader({
          validating: [
            configuration("v", [webhook("check.kopf.dev", `${server.url}/validate`, server.caBundle)]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.deepStrictEqual<unknown>(decision, {
          _tag: "Deny",
          status: {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: 'admission webhook "check.kopf.dev" denied the request: spec.field must be positive',
            code: 422,
          },
          warnings: [],
        });
      }),
    ),
  );

  it.live("skips webhooks whose rules or selectors do not match, and calls nothing then", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) => respond(review));
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("check.kopf.dev", `${server.url}/validate`, server.caBundle, {
                objectSelector: { matchLabels: { app: "other" } },
              }),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.deepStrictEqual(decision, { _tag: "Allow", patches: [], warnings: [] });
        assert.strictEqual(server.reviews.length, 0);
      }),
    ),
  );

  it.live.each([
    ["Fail", "Deny"],
    ["Ignore", "Allow"],
  ] as const)("an unreachable webhook under failurePolicy %s → %s", ([policy, expected]) =>
    Effect.gen(function* () {
      const store = storeReader({
        validating: [
          configuration("v", [
            webhook("gone.kopf.dev", "https://127.0.0.1:1/validate", undefined, { failurePolicy: policy }),
          ]),
        ],
      });
      const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
      assert.strictEqual(decision._tag, expected);
      if (decision._tag === "Deny") {
        assert.strictEqual(decision.status.code, 500);
        assert.strictEqual(decision.status.reason, "InternalError");
        assert.strictEqual(
          decision.status.message,
          'Internal error occurred: failed calling webhook "gone.kopf.dev": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
        );
      }
    }),
  );

  it.live("a webhook whose certificate is not signed by its caBundle fails the call", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) => respond(review));
        const other = yield* webhookServer((review) => respond(review));
        const store = storeReader({
          mutating: [configuration("m", [webhook("tls.kopf.dev", `${server.url}/m`, other.caBundle)])],
        });
        const decision = yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
        assert.strictEqual(decision._tag, "Deny");
        if (decision._tag === "Deny")
          assert.include(decision.status.message ?? "", "x509: certificate signed by unknown authority");
        assert.strictEqual(server.reviews.length, 0);
      }),
    ),
  );

  it.live.each([
    [["default/webhook-svc"], 'no endpoints available for service "webhook-svc"'],
    [[], 'service "webhook-svc" not found'],
  ] as const)("a service reference cannot be reached (services %j)", ([services, reason]) =>
    Effect.gen(function* () {
      const store = storeReader({
        services,
        validating: [
          configuration("v", [
            {
              name: "svc.kopf.dev",
              rules,
              clientConfig: {
                service: { namespace: "default", name: "webhook-svc", path: "/validate", port: 8443 },
              },
              sideEffects: "None",
              admissionReviewVersions: ["v1"],
            },
          ]),
        ],
      });
      const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
      assert.strictEqual(decision._tag, "Deny");
      if (decision._tag === "Deny") {
        assert.strictEqual(
          decision.status.message,
          `Internal error occurred: failed calling webhook "svc.kopf.dev": failed to call webhook: Post "https://webhook-svc.default.svc:8443/validate?timeout=10s": ${reason}`,
        );
      }
    }),
  );

  it.live("a webhook slower than its timeoutSeconds fails the call", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer(async (review) => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return respond(review);
        });
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("slow.kopf.dev", `${server.url}/v`, server.caBundle, { timeoutSeconds: 1 }),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.strictEqual(decision._tag, "Deny");
        if (decision._tag === "Deny") {
          assert.strictEqual(
            decision.status.message,
            `Internal error occurred: failed calling webhook "slow.kopf.dev": failed to call webhook: Post "${server.url}/v?timeout=1s": context deadline exceeded`,
          );
        }
      }),
    ),
  );

  it.live.each([
    ["None", "Allow"],
    ["NoneOnDryRun", "Allow"],
    ["Some", "Deny"],
    ["Unknown", "Deny"],
  ] as const)("a dry run reaching a webhook with sideEffects %s → %s", ([sideEffects, expected]) =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) => respond(review));
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("dry.kopf.dev", `${server.url}/v`, server.caBundle, { sideEffects }),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest({ dryRun: true }), store);
        assert.strictEqual(decision._tag, expected);
        if (decision._tag === "Deny") {
          assert.strictEqual(decision.status.code, 400);
          assert.strictEqual(
            decision.status.message,
            'admission webhook "dry.kopf.dev" does not support dry run',
          );
          assert.strictEqual(server.reviews.length, 0);
        } else assert.isTrue((server.reviews[0] as Record<string, any>).request.dryRun);
      }),
    ),
  );

  it.live("calls validating webhooks concurrently and collects their warnings", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let inFlight = 0;
        let maxInFlight = 0;
        const server = yield* webhookServer(async (review, path) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 200));
          inFlight--;
          return respond(review, { warnings: [`from ${path.split("?")[0]}`] });
        });
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("one.kopf.dev", `${server.url}/one`, server.caBundle),
              webhook("two.kopf.dev", `${server.url}/two`, server.caBundle),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.deepStrictEqual(decision, {
          _tag: "Allow",
          patches: [],
          warnings: ["from /one", "from /two"],
        });
        assert.strictEqual(maxInFlight, 2);
      }),
    ),
  );

  // The real kube-apiserver v1.34.4 answered a denial with the Warning headers of the webhooks
  // that answered before it and of the denying one (the request's warning recorder keeps them).
  it.live("a mutating denial carries the warnings given so far, the denier's included", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review, path) =>
          path.startsWith("/first")
            ? respond(review, { warnings: ["shared", "from first"] })
            : respond(review, {
                allowed: false,
                status: { code: 403, message: "no" },
                warnings: ["shared", "from second"],
              }),
        );
        const store = storeReader({
          mutating: [
            configuration("a", [
              webhook("first.kopf.dev", `${server.url}/first`, server.caBundle),
              webhook("second.kopf.dev", `${server.url}/second`, server.caBundle),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
        assert.strictEqual(decision._tag, "Deny");
        assert.deepStrictEqual(decision.warnings, ["shared", "from first", "from second"]);
      }),
    ),
  );

  it.live("a validating denial carries the warnings of every validating webhook that answered", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review, path) =>
          path.startsWith("/deny")
            ? respond(review, { allowed: false, status: { code: 403, message: "no" }, warnings: ["denier"] })
            : respond(review, { warnings: ["bystander"] }),
        );
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("deny.kopf.dev", `${server.url}/deny`, server.caBundle),
              webhook("allow.kopf.dev", `${server.url}/allow`, server.caBundle),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.strictEqual(decision._tag, "Deny");
        if (decision._tag === "Deny")
          assert.strictEqual(
            decision.status.message,
            'admission webhook "deny.kopf.dev" denied the request: no',
          );
        assert.deepStrictEqual(decision.warnings, ["denier", "bystander"]);
      }),
    ),
  );

  it.live(
    "a webhook's patch is checked only when applied: an operation without a path fails as the library words it",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* webhookServer((review) =>
            respond(review, { patchType: "JSONPatch", patch: patchOf([{ op: "add", value: 1 }]) }),
          );
          const store = storeReader({
            mutating: [configuration("m", [webhook("bad.kopf.dev", `${server.url}/m`, server.caBundle)])],
          });
          const decision = yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
          assert.strictEqual(decision._tag, "Deny");
          if (decision._tag === "Deny")
            assert.strictEqual(
              decision.status.message,
              "Internal error occurred: add operation failed to decode path: missing value",
            );
        }),
      ),
  );

  it.live("a mutating webhook's patch that does not apply is an internal error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) =>
          respond(review, {
            patchType: "JSONPatch",
            patch: patchOf([{ op: "replace", path: "/spec/missing", value: 1 }]),
          }),
        );
        const store = storeReader({
          mutating: [configuration("m", [webhook("bad.kopf.dev", `${server.url}/m`, server.caBundle)])],
        });
        const decision = yield* WebhookAdmission.hook.mutate(admissionRequest(), store);
        assert.strictEqual(decision._tag, "Deny");
        if (decision._tag === "Deny") {
          assert.strictEqual(decision.status.code, 500);
          assert.strictEqual(
            decision.status.message,
            // kube-apiserver v1.34.4's text (evanphx/json-patch v4 wraps its "missing value" cause).
            "Internal error occurred: replace operation does not apply: doc is missing path: /spec/missing: missing value",
          );
        }
      }),
    ),
  );

  it.live("a mutating webhook's patch on DELETE is an internal error, whatever the failurePolicy", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) =>
          respond(review, {
            patchType: "JSONPatch",
            patch: patchOf([{ op: "add", path: "/metadata/labels/x", value: "y" }]),
          }),
        );
        const store = storeReader({
          mutating: [
            configuration("m", [
              webhook("del.kopf.dev", `${server.url}/m`, server.caBundle, {
                failurePolicy: "Ignore",
                rules: [{ ...rules[0], operations: ["DELETE"] }],
              }),
            ]),
          ],
        });
        const request = admissionRequest({
          operation: "DELETE",
          object: null,
          oldObject: { metadata: { name: "kopf-example-1", namespace: "ns1" } },
        });
        const decision = yield* WebhookAdmission.hook.mutate(request, store);
        assert.strictEqual(decision._tag, "Deny");
        if (decision._tag === "Deny") {
          assert.strictEqual(decision.status.code, 500);
          assert.strictEqual(
            decision.status.message,
            'Internal error occurred: admission webhook "del.kopf.dev" attempted to modify the object, which is not supported for this operation',
          );
        }
        // The review of a DELETE carries the old object and a null object.
        assert.strictEqual((server.reviews[0] as any).request.object, null);
      }),
    ),
  );

  it.live("a warning given by several webhooks is sent once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review, path) =>
          respond(review, { warnings: ["same", path.startsWith("/a") ? "from a" : "from b", ""] }),
        );
        const store = storeReader({
          validating: [
            configuration("v", [
              webhook("a.kopf.dev", `${server.url}/a`, server.caBundle),
              webhook("b.kopf.dev", `${server.url}/b`, server.caBundle),
            ]),
          ],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.deepStrictEqual(decision, {
          _tag: "Allow",
          patches: [],
          warnings: ["same", "from a", "from b"],
        });
      }),
    ),
  );

  it.live("a webhook answering with a wrong uid counts as a failed call", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* webhookServer((review) => ({
          ...respond(review),
          response: { uid: "nope", allowed: true },
        }));
        const store = storeReader({
          validating: [configuration("v", [webhook("uid.kopf.dev", `${server.url}/v`, server.caBundle)])],
        });
        const decision = yield* WebhookAdmission.hook.validate(admissionRequest(), store);
        assert.strictEqual(decision._tag, "Deny");
        if (decision._tag === "Deny") assert.include(decision.status.message ?? "", "expected response.uid=");
      }),
    ),
  );
});
