/**
 * Object metadata validation with the apiserver's rules and message wording: names (RFC 1123
 * subdomain/label, RFC 1035 label, path segment), labels, annotations (256 KiB in total),
 * finalizers, owner references, and the immutable fields of an update.
 */
import * as FieldError from "./FieldError.ts";
import { deepEqual, isObject, type JsonObject } from "./internal/Json.ts";
import type { NameRule } from "./ResourceType.ts";

type Errors = Array<FieldError.FieldError>;

/**
 * An RFC 1123 subdomain (lower case), as k8s.io/apimachinery checks one (`SUBDOMAIN_MSG` says so).
 *
 * @example
 * SUBDOMAIN.test("hook.example.com") // true; SUBDOMAIN.test("Hook") // false
 */
export const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

export const TOTAL_ANNOTATION_SIZE = 256 * 1024;

const maxLen = (n: number) => `must be no more than ${n} characters`;

/** Problems with a name under a rule, as detail strings (empty when valid). */
export const nameProblems = (name: string, rule: NameRule): Array<string> => {
  const out: Array<string> = [];
  if (name === "." || name === "..") return [`may not be '${name}'`];
  for (const bad of ["/", "%"]) if (name.includes(bad)) out.push(`may not contain '${bad}'`);
  if (rule === "path") return out;
  const [re, msg, len] =
    rule === "subdomain"
      ? [SUBDOMAIN, SUBDOMAIN_MSG, 253]
      : rule === "label"
        ? [LABEL, LABEL_MSG, 63]
        : [DNS1035, DNS1035_MSG, 63];
  if (name.length > len) out.push(maxLen(len));
  if (!re.test(name)) out.push(msg);
  return out;
};

/** Validates a qualified name (label and annotation keys, finalizers): `[prefix/]name`. */
export const qualifiedNameProblems = (key: string): Array<string> => {
  const parts = key.split("/");
  const out: Array<string> = [];
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) out.push("prefix part must be non-empty");
    else {
      if (prefix.length > 253) out.push("prefix part must be no more than 253 characters");
      if (!SUBDOMAIN.test(prefix)) out.push(`prefix part ${SUBDOMAIN_MSG}`);
    }
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) out.push("name part must be non-empty");
  else {
    if (name.length > 63) out.push("name part must be no more than 63 bytes");
    if (!QUALIFIED_NAME.test(name)) out.push(QUALIFIED_MSG);
  }
  return out;
};

const validateLabels = (labels: unknown, errors: Errors): void => {
  if (labels === undefined || labels === null) return;
  if (!isObject(labels)) {
    errors.push(FieldError.typeInvalid("metadata.labels", labels, "must be of type object"));
    return;
  }
  for (const [k, v] of Object.entries(labels)) {
    for (const p of qualifiedNameProblems(k)) errors.push(FieldError.invalid("metadata.labels", k, p));
    if (typeof v !== "string") {
      errors.push(FieldError.typeInvalid(`metadata.labels.${k}`, v, "must be of type string"));
      continue;
    }
    if (v.length > 63) errors.push(FieldError.invalid("metadata.labels", v, "must be no more than 63 bytes"));
    if (!LABEL_VALUE.test(v)) errors.push(FieldError.invalid("metadata.labels", v, LABEL_VALUE_MSG));
  }
};

const validateAnnotations = (annotations: unknown, errors: Errors): void => {
  if (annotations === undefined || annotations === null) return;
  if (!isObject(annotations)) {
    errors.push(FieldError.typeInvalid("metadata.annotations", annotations, "must be of type object"));
    return;
  }
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const p of qualifiedNameProblems(k.toLowerCase()))
      errors.push(FieldError.invalid("metadata.annotations", k, p));
    total += k.length + (typeof v === "string" ? v.length : 0);
    if (typeof v !== "string")
      errors.push(FieldError.typeInvalid(`metadata.annotations.${k}`, v, "must be of type string"));
  }
  if (total > TOTAL_ANNOTATION_SIZE)
    errors.push(
      FieldError.tooLong("metadata.annotations", `may not be more than ${TOTAL_ANNOTATION_SIZE} bytes`),
    );
};

const validateFinalizers = (finalizers: unknown, errors: Errors): void => {
  if (finalizers === undefined || finalizers === null) return;
  if (!Array.isArray(finalizers)) {
    errors.push(FieldError.typeInvalid("metadata.finalizers", finalizers, "must be of type array"));
    return;
  }
  finalizers.forEach((f, i) => {
    const field = `metadata.finalizers[${i}]`;
    if (typeof f !== "string") errors.push(FieldError.typeInvalid(field, f, "must be of type string"));
    else for (const p of qualifiedNameProblems(f)) errors.push(FieldError.invalid(field, f, p));
  });
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion"))
    errors.push(
      FieldError.invalid(
        "metadata.finalizers",
        finalizers,
        "finalizer orphan and foregroundDeletion cannot be both set",
      ),
    );
};

const validateOwnerReferences = (refs: unknown, errors: Errors): void => {
  if (refs === undefined || refs === null) return;
  if (!Array.isArray(refs)) {
    errors.push(FieldError.typeInvalid("metadata.ownerReferences", refs, "must be of type array"));
    return;
  }
  let controllers = 0;
  refs.forEach((r, i) => {
    const field = `metadata.ownerReferences[${i}]`;
    const ref = isObject(r) ? r : {};
    if (typeof ref.apiVersion !== "string" || ref.apiVersion === "")
      errors.push(
        FieldError.invalid(`${field}.apiVersion`, ref.apiVersion ?? "", "version must not be empty"),
      );
    if (typeof ref.kind !== "string" || ref.kind === "")
      errors.push(FieldError.invalid(`${field}.kind`, ref.kind ?? "", "kind must not be empty"));
    if (typeof ref.name !== "string" || ref.name === "")
      errors.push(FieldError.invalid(`${field}.name`, ref.name ?? "", "name must not be empty"));
    if (typeof ref.uid !== "string" || ref.uid === "")
      errors.push(FieldError.invalid(`${field}.uid`, ref.uid ?? "", "uid must not be empty"));
    if (ref.controller === true) controllers++;
  });
  if (controllers > 1)
    errors.push(
      FieldError.invalid(
        "metadata.ownerReferences",
        refs,
        "Only one reference can have Controller set to true.",
      ),
    );
};

/** Validates the metadata of an object about to be stored (create or update). */
export const validateMetadata = (meta: JsonObject, rule: NameRule, namespaced: boolean): Errors => {
  const errors: Errors = [];
  const name = typeof meta.name === "string" ? meta.name : "";
  if (name === "") errors.push(FieldError.required("metadata.name", "name or generateName is required"));
  else for (const p of nameProblems(name, rule)) errors.push(FieldError.invalid("metadata.name", name, p));
  if (typeof meta.generateName === "string" && meta.generateName !== "" && name === "")
    for (const p of nameProblems(`${meta.generateName}a`, rule))
      errors.push(FieldError.invalid("metadata.generateName", meta.generateName, p));
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  if (namespaced && ns === "") errors.push(FieldError.required("metadata.namespace", ""));
  else if (!namespaced && ns !== "")
    errors.push(FieldError.forbidden("metadata.namespace", "not allowed on this type"));
  validateLabels(meta.labels, errors);
  validateAnnotations(meta.annotations, errors);
  validateFinalizers(meta.finalizers, errors);
  validateOwnerReferences(meta.ownerReferences, errors);
  return errors;
};

/** Immutable-field and finalizer rules of an update. */
export const validateMetadataUpdate = (meta: JsonObject, old: JsonObject): Errors => {
  const errors: Errors = [];
  for (const f of ["name", "namespace", "uid", "creationTimestamp"] as const)
    if (!deepEqual(meta[f], old[f]))
      errors.push(FieldError.invalid(`metadata.${f}`, meta[f] ?? "", "field is immutable"));
  if (old.deletionTimestamp !== undefined) {
    const before = new Set(Array.isArray(old.finalizers) ? old.finalizers : []);
    const added = (Array.isArray(meta.finalizers) ? meta.finalizers : []).filter((f) => !before.has(f));
    if (added.length > 0)
      errors.push(
        FieldError.forbidden(
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
        ),
      );
  }
  return errors;
};
