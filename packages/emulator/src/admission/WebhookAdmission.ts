/**
 * The admission hook that calls real webhooks, as kube-apiserver does: it reads the
 * Mutating/ValidatingWebhookConfigurations from the store on every request, calls matching mutating
 * webhooks one after the other (each sees the previous ones' patches), then matching validating
 * webhooks concurrently; it honours failurePolicy, timeoutSeconds, sideEffects on dry runs and the
 * AdmissionReview versions a webhook accepts, and passes warnings back for `Warning` headers.
 *
 * Service references (`clientConfig.service`) cannot be reached from outside a cluster: such calls
 * fail as a real API server's do when the service has no endpoints, and the failurePolicy decides.
 */
import { randomUUID } from "node:crypto";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import {
  type AdmissionDecision,
  AdmissionHook,
  type AdmissionHookShape,
  type AdmissionRequest,
  allow,
  type StoreReader,
} from "../api/Admission.ts";
import * as JsonPatch from "../api/JsonPatch.ts";
import type { Status } from "../api/Status.ts";
import * as AdmissionReview from "./AdmissionReview.ts";
import { postReview } from "./internal/postReview.ts";
import * as WebhookRules from "./WebhookRules.ts";

const group = "admissionregistration.k8s.io";

type Json = Readonly<Record<string, unknown>>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The outcome of calling one webhook. */
type Call =
  | { readonly _tag: "Answered"; readonly verdict: AdmissionReview.Verdict }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Rejected"; readonly status: Status };

const internalError = (message: string): Status => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: `Internal error occurred: ${message}`,
  reason: "InternalError",
  details: { causes: [{ message }] },
  code: 500,
});

const timeoutOf = (webhook: Json): number => {
  const value = webhook.timeoutSeconds;
  return typeof value === "number" && Number.isInteger(value) ? Math.min(30, Math.max(1, value)) : 10;
};

/** The URL a webhook is called at, or why it cannot be called. */
const endpointOf = (webhook: Json, store: StoreReader): Result.Result<URL, string> => {
  const config = isRecord(webhook.clientConfig) ? webhook.clientConfig : {};
  if (typeof config.url === "string") {
    return URL.canParse(config.url)
      ? Result.succeed(new URL(config.url))
      : Result.fail(`invalid webhook URL ${JSON.stringify(config.url)}`);
  }
  if (isRecord(config.service)) {
    const { name, namespace, path, port } = config.service;
    const target = `https://${String(name)}.${String(namespace)}.svc:${typeof port === "number" ? port : 443}${typeof path === "string" ? path : ""}`;
    const exists = store.get("", "services", String(namespace), String(name)) !== undefined;
    return Result.fail(
      `failed to call webhook: Post "${target}?timeout=${timeoutOf(webhook)}s": ${exists ? `no endpoints available for service "${String(name)}"` : `service "${String(name)}" not found`}`,
    );
  }
  return Result.fail("the webhook has neither clientConfig.url nor clientConfig.service");
};

const caBundleOf = (webhook: Json): string | undefined => {
  const config = isRecord(webhook.clientConfig) ? webhook.clientConfig : {};
  return typeof config.caBundle === "string" && config.caBundle.length > 0
    ? Buffer.from(config.caBundle, "base64").toString("utf8")
    : undefined;
};

const callWebhook = (
  webhook: WebhookRules.Webhook,
  request: AdmissionRequest,
  store: StoreReader,
  mutating: boolean,
): Effect.Effect<Call> => {
  const raw = webhook.raw;
  if (request.dryRun) {
    const sideEffects = raw.sideEffects;
    if (sideEffects === undefined)
      return Effect.succeed({ _tag: "Failed", reason: "Webhook SideEffects is nil" });
    if (sideEffects !== "None" && sideEffects !== "NoneOnDryRun") {
      return Effect.succeed({
        _tag: "Rejected",
        status: AdmissionReview.dryRunUnsupportedStatus(webhook.name),
      });
    }
  }
  const accepted = Array.isArray(raw.admissionReviewVersions) ? raw.admissionReviewVersions : ["v1"];
  const version = AdmissionReview.supportedVersions.find((candidate) => accepted.includes(candidate));
  if (version === undefined) {
    return Effect.succeed({
      _tag: "Failed",
      reason: "webhook does not accept known AdmissionReview versions",
    });
  }
  const endpoint = endpointOf(raw, store);
  if (Result.isFailure(endpoint)) return Effect.succeed({ _tag: "Failed", reason: endpoint.failure });
  const uid = randomUUID();
  return postReview(
    endpoint.success,
    AdmissionReview.requestDocument(uid, request, version),
    caBundleOf(raw),
    timeoutOf(raw),
  ).pipe(
    Effect.map((document) => {
      const verified = AdmissionReview.verifyResponse(uid, version, mutating, document);
      return Result.isSuccess(verified)
        ? ({ _tag: "Answered", verdict: verified.success } satisfies Call)
        : ({ _tag: "Failed", reason: verified.failure } satisfies Call);
    }),
    Effect.catch((reason) =>
      Effect.succeed({ _tag: "Failed", reason: `failed to call webhook: ${reason}` } satisfies Call),
    ),
  );
};

/** A warning is sent once per request, however many webhooks (or reinvocations) give it. */
const unique = (warnings: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(warnings)].filter((warning) => warning !== "");

const failsOpen = (webhook: WebhookRules.Webhook): boolean => webhook.raw.failurePolicy === "Ignore";

/** CEL `matchConditions` are not evaluated here; say so in a warning rather than silently. */
const conditionWarnings = (webhooks: ReadonlyArray<WebhookRules.Webhook>): Array<string> =>
  webhooks
    .filter((webhook) => Array.isArray(webhook.raw.matchConditions) && webhook.raw.matchConditions.length > 0)
    .map(
      (webhook) =>
        `the emulator does not evaluate matchConditions: webhook "${webhook.name}" was called as if they all matched`,
    );

const configurations = (store: StoreReader, resource: string): ReadonlyArray<WebhookRules.Webhook> =>
  WebhookRules.webhooksOf(store.list(group, resource));

/** The webhooks of `resource` configurations to call for `request`, or a selector error. */
const selected = (
  store: StoreReader,
  resource: string,
  request: AdmissionRequest,
): Result.Result<ReadonlyArray<WebhookRules.Webhook>, Status> => {
  const out: Array<WebhookRules.Webhook> = [];
  for (const webhook of configurations(store, resource)) {
    const selection = WebhookRules.select(webhook, request, store.namespaceLabels);
    if (selection === "Call") out.push(webhook);
    else if (selection !== "Skip") return Result.fail(internalError(selection.message));
  }
  return Result.succeed(out);
};

/**
 * Mutating webhooks run one after the other, each on the object as the previous ones left it. A
 * webhook with `reinvocationPolicy: IfNeeded` is called once more at the end when a later webhook
 * changed the object after it (as kube-apiserver's single reinvocation round).
 */
const mutate = Effect.fnUntraced(function* (request: AdmissionRequest, store: StoreReader) {
  const webhooks = selected(store, "mutatingwebhookconfigurations", request);
  if (Result.isFailure(webhooks))
    return { _tag: "Deny", status: webhooks.failure } satisfies AdmissionDecision;
  if (webhooks.success.length === 0) return allow;
  let current = request;
  let changes = 0;
  const patches: Array<JsonPatch.Operation> = [];
  const warnings: Array<string> = conditionWarnings(webhooks.success);
  /** Calls one webhook and folds its answer in; a decision ends the admission. */
  const invoke = Effect.fnUntraced(function* (webhook: WebhookRules.Webhook) {
    const call = yield* callWebhook(webhook, current, store, true);
    if (call._tag === "Rejected") return { _tag: "Deny", status: call.status } satisfies AdmissionDecision;
    if (call._tag === "Failed") {
      if (failsOpen(webhook)) return undefined;
      return {
        _tag: "Deny",
        status: AdmissionReview.callFailureStatus(webhook.name, call.reason),
      } satisfies AdmissionDecision;
    }
    warnings.push(...call.verdict.warnings);
    if (!call.verdict.allowed) {
      return {
        _tag: "Deny",
        status: AdmissionReview.denialStatus(webhook.name, call.verdict.result),
      } satisfies AdmissionDecision;
    }
    if (call.verdict.patch.length === 0) return undefined;
    // Not a failed call: the failurePolicy does not apply to these.
    if (current.object === undefined || current.object === null) {
      return {
        _tag: "Deny",
        status: internalError(
          `admission webhook "${webhook.name}" attempted to modify the object, which is not supported for this operation`,
        ),
      } satisfies AdmissionDecision;
    }
    const patched = JsonPatch.apply(current.object, call.verdict.patch);
    if (Result.isFailure(patched)) {
      return { _tag: "Deny", status: internalError(patched.failure) } satisfies AdmissionDecision;
    }
    if (JSON.stringify(patched.success) !== JSON.stringify(current.object)) changes++;
    current = { ...current, object: patched.success };
    patches.push(...call.verdict.patch);
    return undefined;
  });
  // The warnings given so far go with a denial too, as the request's warning recorder has them.
  const decided = (decision: AdmissionDecision): AdmissionDecision => ({
    ...decision,
    warnings: unique(warnings),
  });
  const seen = new Map<WebhookRules.Webhook, number>();
  for (const webhook of webhooks.success) {
    const decision = yield* invoke(webhook);
    if (decision !== undefined) return decided(decision);
    seen.set(webhook, changes);
  }
  for (const webhook of webhooks.success) {
    if (webhook.raw.reinvocationPolicy !== "IfNeeded" || (seen.get(webhook) ?? changes) >= changes) continue;
    const decision = yield* invoke(webhook);
    if (decision !== undefined) return decided(decision);
  }
  return { _tag: "Allow", patches, warnings: unique(warnings) } satisfies AdmissionDecision;
});

const validate = Effect.fnUntraced(function* (request: AdmissionRequest, store: StoreReader) {
  const webhooks = selected(store, "validatingwebhookconfigurations", request);
  if (Result.isFailure(webhooks))
    return { _tag: "Deny", status: webhooks.failure } satisfies AdmissionDecision;
  if (webhooks.success.length === 0) return allow;
  const calls = yield* Effect.forEach(
    webhooks.success,
    (webhook) => callWebhook(webhook, request, store, false),
    {
      concurrency: "unbounded",
    },
  );
  // Validating webhooks run concurrently: every answer's warnings are recorded, whichever denies.
  const warnings = unique([
    ...conditionWarnings(webhooks.success),
    ...calls.flatMap((call) => (call._tag === "Answered" ? call.verdict.warnings : [])),
  ]);
  for (const [index, call] of calls.entries()) {
    const webhook = webhooks.success[index] as WebhookRules.Webhook;
    if (call._tag === "Rejected")
      return { _tag: "Deny", status: call.status, warnings } satisfies AdmissionDecision;
    if (call._tag === "Failed") {
      if (failsOpen(webhook)) continue;
      return {
        _tag: "Deny",
        status: AdmissionReview.callFailureStatus(webhook.name, call.reason),
        warnings,
      } satisfies AdmissionDecision;
    }
    if (!call.verdict.allowed) {
      return {
        _tag: "Deny",
        status: AdmissionReview.denialStatus(webhook.name, call.verdict.result),
        warnings,
      } satisfies AdmissionDecision;
    }
  }
  return { _tag: "Allow", patches: [], warnings } satisfies AdmissionDecision;
});

/**
 * The webhook-calling admission hook.
 *
 * @example
 * ```ts
 * const emulator = KubeEmulator.layer().pipe(Layer.provide(WebhookAdmission.layer));
 * ```
 */
export const hook: AdmissionHookShape = { mutate, validate };

/** Provides {@link hook} as the core's `AdmissionHook`. */
export const layer = Layer.succeed(AdmissionHook)(hook);
