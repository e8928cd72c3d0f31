/**
 * Validation of admission webhook configurations (validating and mutating), as kube-apiserver's
 * `ValidateValidatingWebhookConfiguration` and `ValidateMutatingWebhookConfiguration` check them;
 * `BuiltinValidation.ts` runs it for those two kinds.
 */
import * as FieldError from "../FieldError.ts";
import { SUBDOMAIN, SUBDOMAIN_MSG } from "../Validation.ts";
import { asObject, type JsonObject } from "./Json.ts";

type Errors = Array<FieldError.FieldError>;

/**
 * Appends the problems of a webhook configuration's `webhooks` to `errors`, with
 * k8s.io/kubernetes' messages: names (a subdomain of three segments or more, each once), failure,
 * match, side-effect and (mutating only) reinvocation policies, the timeout (1-30 s), exactly one
 * of the client config's url or service, and the admission review versions.
 *
 * @example
 * ```ts
 * const errors: Array<FieldError.FieldError> = []
 * webhookErrors({ webhooks: [{ name: "hook" }] }, false, errors) // name, sideEffects, clientConfig, …
 * ```
 */
export const webhookErrors = (obj: JsonObject, mutating: boolean, errors: Errors): void => {
  const seen = new Set<string>();
  (Array.isArray(obj.webhooks) ? obj.webhooks : []).forEach((w, i) => {
    const hook = asObject(w);
    const p = `webhooks[${i}]`;
    const name = typeof hook.name === "string" ? hook.name : "";
    if (name === "") errors.push(FieldError.required(`${p}.name`));
    else if (!SUBDOMAIN.test(name) || name.length > 253)
      errors.push(FieldError.invalid(`${p}.name`, name, SUBDOMAIN_MSG));
    else if (name.split(".").length < 3)
      errors.push(
        FieldError.invalid(
          `${p}.name`,
          name,
          "should be a domain with at least three segments separated by dots",
        ),
      );
    if (hook.failurePolicy !== undefined && hook.failurePolicy !== "Fail" && hook.failurePolicy !== "Ignore")
      errors.push(FieldError.notSupported(`${p}.failurePolicy`, hook.failurePolicy, ["Fail", "Ignore"]));
    if (hook.matchPolicy !== undefined && hook.matchPolicy !== "Equivalent" && hook.matchPolicy !== "Exact")
      errors.push(FieldError.notSupported(`${p}.matchPolicy`, hook.matchPolicy, ["Equivalent", "Exact"]));
    if (hook.sideEffects === undefined)
      errors.push(FieldError.required(`${p}.sideEffects`, "must specify one of None, NoneOnDryRun"));
    else if (hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun")
      errors.push(FieldError.notSupported(`${p}.sideEffects`, hook.sideEffects, ["None", "NoneOnDryRun"]));
    if (typeof hook.timeoutSeconds === "number" && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1))
      errors.push(
        FieldError.invalid(
          `${p}.timeoutSeconds`,
          hook.timeoutSeconds,
          "the timeout value must be between 1 and 30 seconds",
        ),
      );
    const cc = asObject(hook.clientConfig);
    if ((cc.url === undefined) === (cc.service === undefined))
      errors.push(FieldError.required(`${p}.clientConfig`, "exactly one of url or service is required"));
    if (
      mutating &&
      hook.reinvocationPolicy !== undefined &&
      hook.reinvocationPolicy !== "Never" &&
      hook.reinvocationPolicy !== "IfNeeded"
    )
      errors.push(
        FieldError.notSupported(`${p}.reinvocationPolicy`, hook.reinvocationPolicy, ["IfNeeded", "Never"]),
      );
    const versions = Array.isArray(hook.admissionReviewVersions) ? hook.admissionReviewVersions : [];
    if (versions.length === 0)
      errors.push(FieldError.required(`${p}.admissionReviewVersions`, "must specify one of v1, v1beta1"));
    else if (!versions.some((v) => v === "v1" || v === "v1beta1"))
      errors.push(
        FieldError.invalid(
          `${p}.admissionReviewVersions`,
          versions,
          "must include at least one of v1, v1beta1",
        ),
      );
    if (name !== "") {
      if (seen.has(name))
        errors.push({ type: "FieldValueDuplicate", field: `${p}.name`, value: name, detail: "" });
      seen.add(name);
    }
  });
};
