/**
 * CustomResourceDefinitions: validation of a CRD as the apiextensions apiserver checks the parts
 * that matter, the resource type it serves, and the status its controllers write (accepted names,
 * `NamesAccepted` and `Established` conditions, stored versions).
 */
import * as FieldError from "./FieldError.ts";
import { asObject, isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import { formatTime } from "./internal/Time.ts";
import type { ResourceType } from "./ResourceType.ts";
import type { StructuralSchema } from "./Schema.ts";

const strings = (v: unknown): Array<string> =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** Field errors of a CRD (after defaulting). */
export const validateCrd = (crd: JsonObject): Array<FieldError.FieldError> => {
  const errors: Array<FieldError.FieldError> = [];
  const spec = asObject(crd.spec);
  const names = asObject(spec.names);
  const group = str(spec.group) ?? "";
  const plural = str(names.plural) ?? "";
  const name = str(metaOf(crd).name) ?? "";
  if (group === "") errors.push(FieldError.required("spec.group"));
  else if (!group.includes("."))
    errors.push(FieldError.invalid("spec.group", group, "should be a domain with at least one dot"));
  if (plural === "") errors.push(FieldError.required("spec.names.plural"));
  if ((str(names.kind) ?? "") === "") errors.push(FieldError.required("spec.names.kind"));
  if ((str(names.listKind) ?? "") === "") errors.push(FieldError.required("spec.names.listKind"));
  if (plural !== "" && group !== "" && name !== `${plural}.${group}`)
    errors.push(FieldError.invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    if (spec.scope === undefined || spec.scope === "") errors.push(FieldError.required("spec.scope"));
    else errors.push(FieldError.notSupported("spec.scope", spec.scope, ["Cluster", "Namespaced"]));
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0)
    errors.push(
      FieldError.invalid(
        "spec.versions",
        versions,
        "must have exactly one version marked as storage version",
      ),
    );
  else {
    const storage = versions.filter((v) => isObject(v) && v.storage === true).length;
    if (storage !== 1)
      errors.push(
        FieldError.invalid(
          "spec.versions",
          versions,
          "must have exactly one version marked as storage version",
        ),
      );
    versions.forEach((v, i) => {
      const ver = asObject(v);
      if ((str(ver.name) ?? "") === "") errors.push(FieldError.required(`spec.versions[${i}].name`));
      if (typeof ver.served !== "boolean") errors.push(FieldError.required(`spec.versions[${i}].served`));
      if (typeof ver.storage !== "boolean") errors.push(FieldError.required(`spec.versions[${i}].storage`));
      const schema = asObject(ver.schema).openAPIV3Schema;
      if (!isObject(schema))
        errors.push(
          FieldError.required(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required"),
        );
      else if (schema.type !== "object")
        errors.push(
          schema.type === undefined
            ? FieldError.required(
                `spec.versions[${i}].schema.openAPIV3Schema.type`,
                "must not be empty at the root",
              )
            : FieldError.invalid(
                `spec.versions[${i}].schema.openAPIV3Schema.type`,
                schema.type,
                "must be object at the root",
              ),
        );
    });
  }
  return errors;
};

/** The resource type a CRD serves (undefined when it serves no version). */
export const resourceTypeOf = (crd: JsonObject): ResourceType | undefined => {
  const spec = asObject(crd.spec);
  const names = asObject(spec.names);
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isObject);
  const served = versions.filter((v) => v.served === true).map((v) => str(v.name) ?? "");
  const storage = versions.find((v) => v.storage === true);
  if (served.length === 0 || storage === undefined) return undefined;
  const schemas = new Map<string, StructuralSchema>();
  let status = false;
  let scale: ResourceType["scale"];
  for (const v of versions) {
    const schema = asObject(v.schema).openAPIV3Schema;
    if (isObject(schema)) schemas.set(str(v.name) ?? "", schema);
    const subs = asObject(v.subresources);
    if (v.name === storage.name || status === false) {
      if (isObject(subs.status)) status = true;
      if (isObject(subs.scale)) {
        const s = subs.scale;
        scale = {
          specReplicasPath: str(s.specReplicasPath) ?? ".spec.replicas",
          statusReplicasPath: str(s.statusReplicasPath) ?? ".status.replicas",
          ...(typeof s.labelSelectorPath === "string" ? { labelSelectorPath: s.labelSelectorPath } : {}),
        };
      }
    }
  }
  const selectable = versions.flatMap((v) =>
    (Array.isArray(v.selectableFields) ? v.selectableFields : []).map((f) =>
      (str(asObject(f).jsonPath) ?? "").replace(/^\./, ""),
    ),
  );
  const kind = str(names.kind) ?? "";
  return {
    group: str(spec.group) ?? "",
    versions: sortVersions(served),
    storageVersion: str(storage.name) ?? "",
    kind,
    listKind: str(names.listKind) ?? `${kind}List`,
    plural: str(names.plural) ?? "",
    singular: str(names.singular) ?? kind.toLowerCase(),
    shortNames: strings(names.shortNames),
    categories: strings(names.categories),
    namespaced: spec.scope === "Namespaced",
    // The order kube-apiserver lists a custom resource's verbs in.
    verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
    status,
    scale,
    extraSubresources: [],
    custom: true,
    generation: true,
    allowUnconditionalUpdate: false,
    returnDeletedObject: false,
    fieldSelectors: [
      "metadata.name",
      ...(spec.scope === "Namespaced" ? ["metadata.namespace"] : []),
      ...selectable,
    ],
    fieldLabelsConverted: true,
    nameRule: "subdomain",
    schemas,
    printerColumns: (Array.isArray(storage.additionalPrinterColumns) ? storage.additionalPrinterColumns : [])
      .filter(isObject)
      .map((c) => ({
        name: str(c.name) ?? "",
        type: str(c.type) ?? "string",
        format: str(c.format) ?? "",
        description:
          str(c.description) ??
          `Custom resource definition column (in JSONPath format): ${str(c.jsonPath) ?? ""}`,
        priority: typeof c.priority === "number" ? c.priority : 0,
        jsonPath: str(c.jsonPath) ?? "",
      })),
  };
};

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, then others by name. */
export const versionPriority = (a: string, b: string): number => {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [3, 0, 0, v] as const;
    const stage = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v] as const;
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] as number) - (pb[i] as number);
  return pa[3] < pb[3] ? -1 : pa[3] > pb[3] ? 1 : 0;
};

export const sortVersions = (versions: ReadonlyArray<string>): Array<string> =>
  [...versions].sort(versionPriority);

/** The status the CRD controllers converge to for an accepted CRD. */
export const establishedStatus = (crd: JsonObject, now: number): JsonObject => {
  const spec = asObject(crd.spec);
  const names = asObject(spec.names);
  const old = asObject(crd.status);
  const time = formatTime(now);
  const storage = (Array.isArray(spec.versions) ? spec.versions : [])
    .filter(isObject)
    .find((v) => v.storage === true);
  const stored = new Set([
    ...strings(old.storedVersions),
    ...(storage === undefined ? [] : [str(storage.name) ?? ""]),
  ]);
  const condition = (type: string, reason: string, message: string) => {
    const previous = (Array.isArray(old.conditions) ? old.conditions : [])
      .filter(isObject)
      .find((c) => c.type === type);
    return {
      type,
      status: "True",
      lastTransitionTime: previous?.status === "True" ? previous.lastTransitionTime : time,
      reason,
      message,
    };
  };
  return {
    conditions: [
      condition("NamesAccepted", "NoConflicts", "no conflicts found"),
      condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ],
    acceptedNames: {
      plural: names.plural,
      singular: names.singular,
      ...(Array.isArray(names.shortNames) ? { shortNames: names.shortNames } : {}),
      kind: names.kind,
      listKind: names.listKind,
      ...(Array.isArray(names.categories) ? { categories: names.categories } : {}),
    },
    storedVersions: [...stored],
  };
};
