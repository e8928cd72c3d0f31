/**
 * Type-specific validation of the built-in kinds, for the rules a test is likely to trip over:
 * finalizer names of core and apps kinds; configmap and secret keys, sizes and immutability; pods'
 * and deployments' containers, selectors and template labels; service ports; admission webhook
 * configurations. Messages follow
 * k8s.io/kubernetes' validation packages.
 */
import * as FieldError from "./FieldError.ts";
import { asObject, deepEqual, isObject, type JsonObject, metaOf } from "./internal/Json.ts";
import { webhookErrors } from "./internal/webhookValidation.ts";
import type { ResourceType } from "./ResourceType.ts";
import * as Selectors from "./Selectors.ts";

type Errors = Array<FieldError.FieldError>;

const MAX_SECRET_SIZE = 1024 * 1024;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const configKeyProblems = (key: string): Array<string> => {
  const out: Array<string> = [];
  if (key.length > 253) out.push("must be no more than 253 characters");
  if (!CONFIG_KEY.test(key)) out.push(CONFIG_KEY_MSG);
  if (key === ".") out.push("must not be '.'");
  else if (key === "..") out.push("must not be '..'");
  else if (key.startsWith("..")) out.push("must not start with '..'");
  return out;
};

const dataErrors = (
  obj: JsonObject,
  fields: ReadonlyArray<string>,
  sizeOf: (v: unknown) => number,
  errors: Errors,
): void => {
  let total = 0;
  for (const f of fields) {
    const data = asObject(obj[f]);
    for (const [k, v] of Object.entries(data)) {
      for (const p of configKeyProblems(k)) errors.push(FieldError.invalid(`${f}[${k}]`, k, p));
      if (f === "data" && fields.includes("binaryData") && Object.hasOwn(asObject(obj.binaryData), k))
        errors.push(FieldError.invalid(`data[${k}]`, k, "duplicate of key present in binaryData"));
      total += sizeOf(v);
    }
  }
  if (total > MAX_SECRET_SIZE)
    errors.push(FieldError.tooLong("[]", `may not be more than ${MAX_SECRET_SIZE} bytes`));
};

const immutable = (
  obj: JsonObject,
  old: JsonObject | undefined,
  fields: ReadonlyArray<string>,
  errors: Errors,
): void => {
  if (old === undefined || old.immutable !== true) return;
  if (obj.immutable !== true)
    errors.push(FieldError.forbidden("immutable", "field is immutable when `immutable` is set"));
  for (const f of fields)
    if (!deepEqual(obj[f], old[f]))
      errors.push(FieldError.forbidden(f, "field is immutable when `immutable` is set"));
};

const base64Length = (v: unknown): number =>
  typeof v === "string" ? Math.floor((v.replace(/=+$/, "").length * 3) / 4) : 0;

const containerErrors = (spec: JsonObject, path: string, errors: Errors): void => {
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    errors.push(FieldError.required(`${path}.containers`));
    return;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const container = asObject(c);
    const p = `${path}.containers[${i}]`;
    if (typeof container.name !== "string" || container.name === "")
      errors.push(FieldError.required(`${p}.name`));
    else if (names.has(container.name))
      errors.push({ type: "FieldValueDuplicate", field: `${p}.name`, value: container.name, detail: "" });
    else names.add(container.name);
    if (typeof container.image !== "string" || container.image.trim() === "")
      errors.push(FieldError.required(`${p}.image`));
  });
};

const deploymentErrors = (obj: JsonObject, errors: Errors): void => {
  const spec = asObject(obj.spec);
  const hasSelector = isObject(spec.selector);
  const selector = asObject(spec.selector);
  if (!hasSelector) errors.push(FieldError.required("spec.selector"));
  const matchLabels = asObject(selector.matchLabels);
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  if (hasSelector && Object.keys(matchLabels).length === 0 && expressions.length === 0)
    errors.push(FieldError.invalid("spec.selector", selector, "empty selector is invalid for deployment"));
  const template = asObject(spec.template);
  const rawLabels = metaOf(template).labels;
  const labels = asObject(rawLabels) as Record<string, string>;
  const requirements: Array<Selectors.LabelRequirement> = [
    ...Object.entries(matchLabels).map(([key, value]) => ({ op: "=" as const, key, value: String(value) })),
    ...expressions.filter(isObject).map((e): Selectors.LabelRequirement => {
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      const key = String(e.key ?? "");
      return e.operator === "In"
        ? { op: "in", key, values }
        : e.operator === "NotIn"
          ? { op: "notin", key, values }
          : e.operator === "Exists"
            ? { op: "exists", key }
            : { op: "!exists", key };
    }),
  ];
  if (!hasSelector || (requirements.length > 0 && !Selectors.matchesLabels(requirements, labels)))
    errors.push(
      FieldError.invalid(
        "spec.template.metadata.labels",
        rawLabels ?? null,
        "`selector` does not match template `labels`",
      ),
    );
  containerErrors(asObject(template.spec), "spec.template.spec", errors);
  if (typeof spec.replicas === "number" && spec.replicas < 0)
    errors.push(FieldError.invalid("spec.replicas", spec.replicas, "must be greater than or equal to 0"));
};

const serviceErrors = (obj: JsonObject, errors: Errors): void => {
  const spec = asObject(obj.spec);
  const type = spec.type ?? "ClusterIP";
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (type !== "ExternalName" && spec.clusterIP !== "None" && ports.length === 0)
    errors.push(FieldError.required("spec.ports"));
  ports.forEach((p, i) => {
    const port = asObject(p).port;
    if (typeof port !== "number" || port < 1 || port > 65535)
      errors.push(
        FieldError.invalid(`spec.ports[${i}].port`, port ?? 0, "must be between 1 and 65535, inclusive"),
      );
  });
};

/** The core kinds whose update validation also runs their create validation (so reports twice). */
const REVALIDATED_ON_UPDATE: ReadonlySet<string> = new Set(["configmaps", "secrets", "serviceaccounts"]);

/** The finalizers core and apps kinds accept without a domain prefix. */
const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/**
 * A core or apps kind's finalizer without a `/` must be a standard one (kube-apiserver v1.34.4
 * answered 422 for a ConfigMap's finalizer "a"; custom resources only get a warning).
 */
const kubeFinalizerErrors = (obj: JsonObject, errors: Errors): void => {
  const finalizers = metaOf(obj).finalizers;
  if (!Array.isArray(finalizers)) return;
  finalizers.forEach((f, i) => {
    if (typeof f === "string" && !f.includes("/") && !STANDARD_FINALIZERS.has(f))
      errors.push(
        FieldError.invalid(
          `metadata.finalizers[${i}]`,
          f,
          "name is neither a standard finalizer name nor is it fully qualified",
        ),
      );
  });
};

/** ValidateLeaseSpec: a positive duration, non-negative transitions, no preferred holder without a strategy. */
const leaseErrors = (spec: JsonObject, errors: Errors): void => {
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === "number" && duration <= 0)
    errors.push(FieldError.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  const transitions = spec.leaseTransitions;
  if (typeof transitions === "number" && transitions < 0)
    errors.push(
      FieldError.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"),
    );
  const preferred = spec.preferredHolder;
  if (
    typeof preferred === "string" &&
    preferred !== "" &&
    (typeof spec.strategy !== "string" || spec.strategy === "")
  )
    errors.push(
      FieldError.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"),
    );
};

/**
 * Field errors of a built-in object (beyond metadata) for a create (`old` undefined) or update.
 *
 * @example
 * validate(deploymentType, { spec: {} }, undefined) // [{ type: "FieldValueRequired", field: "spec.selector", ... }]
 */
export const validate = (type: ResourceType, obj: JsonObject, old: JsonObject | undefined): Errors => {
  const errors: Errors = [];
  if (type.custom) return errors;
  if (type.group === "" || type.group === "apps") {
    kubeFinalizerErrors(obj, errors);
    // These kinds' update validation checks the metadata update, then the whole object again.
    if (old !== undefined && type.group === "" && REVALIDATED_ON_UPDATE.has(type.plural))
      kubeFinalizerErrors(obj, errors);
  }
  switch (`${type.group}/${type.plural}`) {
    case "/configmaps":
      dataErrors(
        obj,
        ["data", "binaryData"],
        (v) => (typeof v === "string" ? (type.plural === "configmaps" ? v.length : 0) : 0),
        errors,
      );
      immutable(obj, old, ["data", "binaryData"], errors);
      break;
    case "/secrets":
      dataErrors(obj, ["data"], base64Length, errors);
      immutable(obj, old, ["data"], errors);
      if (old !== undefined && (obj.type ?? "Opaque") !== (old.type ?? "Opaque"))
        errors.push(FieldError.invalid("type", obj.type ?? "", "field is immutable"));
      break;
    case "/pods":
      containerErrors(asObject(obj.spec), "spec", errors);
      break;
    case "apps/deployments":
      deploymentErrors(obj, errors);
      break;
    case "/events": {
      // ValidateEventCreate: a namespaced involved object lives in the event's namespace.
      const involved = asObject(obj.involvedObject).namespace;
      const own = asObject(obj.metadata).namespace;
      if (typeof involved === "string" && involved !== "" && involved !== own)
        errors.push(
          FieldError.invalid("involvedObject.namespace", involved, "does not match event.namespace"),
        );
      break;
    }
    case "/services":
      serviceErrors(obj, errors);
      break;
    case "coordination.k8s.io/leases":
      leaseErrors(asObject(obj.spec), errors);
      break;
    case "admissionregistration.k8s.io/validatingwebhookconfigurations":
      webhookErrors(obj, false, errors);
      break;
    case "admissionregistration.k8s.io/mutatingwebhookconfigurations":
      webhookErrors(obj, true, errors);
      break;
  }
  return errors;
};
