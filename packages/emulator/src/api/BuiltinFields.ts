/**
 * The top-level fields of the built-in kinds, as their Go types declare them: a field outside
 * these is unknown to kube-apiserver's decoder, which drops it (with a warning under
 * `fieldValidation=Warn`, the default) or rejects the request (`Strict`). Only the top level is
 * known here; unknown fields deeper inside a built-in object are kept. Kinds not listed (events,
 * custom resources: those have their schemas) are not checked.
 */
import type { JsonObject } from "./internal/Json.ts";
import type { ResourceType } from "./ResourceType.ts";

const META = ["apiVersion", "kind", "metadata"];
const SPEC_STATUS = [...META, "spec", "status"];

const FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  "/namespaces": new Set(SPEC_STATUS),
  "/configmaps": new Set([...META, "data", "binaryData", "immutable"]),
  "/secrets": new Set([...META, "data", "stringData", "type", "immutable"]),
  "/serviceaccounts": new Set([...META, "secrets", "imagePullSecrets", "automountServiceAccountToken"]),
  "/pods": new Set(SPEC_STATUS),
  "/services": new Set(SPEC_STATUS),
  "apps/deployments": new Set(SPEC_STATUS),
  "coordination.k8s.io/leases": new Set([...META, "spec"]),
  "apiextensions.k8s.io/customresourcedefinitions": new Set(SPEC_STATUS),
  "admissionregistration.k8s.io/validatingwebhookconfigurations": new Set([...META, "webhooks"]),
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": new Set([...META, "webhooks"]),
};

/**
 * The object without the top-level fields its built-in kind does not have; their names are
 * appended to `dropped` (in the object's order). Custom resources and unlisted kinds come back as
 * they are.
 *
 * @example
 * prune(configMapType, { kind: "ConfigMap", data: {}, spec: { x: 1 } }, dropped) // { kind: "ConfigMap", data: {} }; dropped: ["spec"]
 */
export const prune = (type: ResourceType, obj: JsonObject, dropped: Array<string> = []): JsonObject => {
  const known = type.custom ? undefined : FIELDS[`${type.group}/${type.plural}`];
  if (known === undefined) return obj;
  const unknown = Object.keys(obj).filter((key) => !known.has(key));
  if (unknown.length === 0) return obj;
  dropped.push(...unknown);
  const out: JsonObject = { ...obj };
  for (const key of unknown) delete out[key];
  return out;
};
