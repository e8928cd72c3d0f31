/**
 * Checks of a decoded write body before anything is stored: an object, of the resource's kind and
 * apiVersion, whose typed string fields hold strings and whose bytes fields hold base64 — with the
 * errors kube-apiserver's decoders and validation answer.
 */
import * as Result from "effect/Result";
import * as Body from "./Body.ts";
import * as FieldError from "./FieldError.ts";
import type { Resolved } from "./internal/Core.ts";
import { goType, isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import * as MicroTime from "./internal/MicroTime.ts";
import { apiVersionOf } from "./ResourceType.ts";
import * as Status from "./Status.ts";

/** The typed decoder's error for a string field or string map holding another JSON type. */
const typedStringProblem = (kind: string, value: JsonObject): string | undefined => {
  const meta = value.metadata;
  const wrong = (v: unknown) => v !== undefined && v !== null && typeof v !== "string";
  const unmarshal = (v: unknown, field: string) =>
    `json: cannot unmarshal ${goType(v)} into Go struct field ${field} of type string`;
  if (isObject(meta)) {
    for (const f of ["name", "generateName", "namespace"])
      if (wrong(meta[f])) return unmarshal(meta[f], `ObjectMeta.metadata.${f}`);
    for (const f of ["labels", "annotations"]) {
      const map = meta[f];
      if (isObject(map))
        for (const v of Object.values(map)) if (wrong(v)) return unmarshal(v, `ObjectMeta.metadata.${f}`);
    }
  }
  if (kind === "ConfigMap" && isObject(value.data))
    for (const v of Object.values(value.data)) if (wrong(v)) return unmarshal(v, "ConfigMap.data");
  return undefined;
};

/** The typed decoder's error for a Lease spec field of the wrong type or a malformed MicroTime. */
const leaseProblem = (value: JsonObject): string | undefined => {
  const spec = value.spec;
  if (!isObject(spec)) return undefined;
  const unmarshal = (v: unknown, field: string, type: string) =>
    `json: cannot unmarshal ${typeof v === "number" ? `number ${v}` : goType(v)} into Go struct field LeaseSpec.spec.${field} of type ${type}`;
  for (const [field, v] of Object.entries(spec)) {
    if (v === null || v === undefined) continue;
    if (["holderIdentity", "strategy", "preferredHolder"].includes(field) && typeof v !== "string")
      return unmarshal(v, field, "string");
    if (
      ["leaseDurationSeconds", "leaseTransitions"].includes(field) &&
      !(typeof v === "number" && Number.isInteger(v) && Math.abs(v) < 2 ** 31)
    )
      return unmarshal(v, field, "int32");
    if (field === "acquireTime" || field === "renewTime") {
      const bad = MicroTime.problem(v);
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
};

/** Go's base64.StdEncoding error for a string, if it does not decode. */
const base64Error = (v: string): string | undefined => {
  const invalid = v.search(/[^A-Za-z0-9+/=]/);
  if (invalid >= 0) return `illegal base64 data at input byte ${invalid}`;
  const pad = v.indexOf("=");
  if (pad >= 0 && (!/^=+$/.test(v.slice(pad)) || v.length - pad > 2 || v.length % 4 !== 0))
    return `illegal base64 data at input byte ${pad}`;
  if (v.length % 4 !== 0) return `illegal base64 data at input byte ${v.length - (v.length % 4)}`;
  return undefined;
};

/** Checks a decoded body: an object whose apiVersion and kind (when given) fit the resource. */
export const checkBody = (
  resolved: Resolved,
  value: unknown,
  body?: Uint8Array,
): Result.Result<JsonObject, Status.ApiError> => {
  const t = resolved.type;
  const expectedKind = resolved.subresource === "scale" ? "Scale" : t.kind;
  if (!isObject(value))
    return Result.fail(
      Body.unrecognized(
        expectedKind,
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
        body,
      ),
    );
  const kind = str(value.kind);
  const apiVersion = str(value.apiVersion);
  if (t.custom && (kind === undefined || kind === ""))
    return Result.fail(
      Body.unrecognized(expectedKind, `Object 'Kind' is missing in '${JSON.stringify(value)}'`, body),
    );
  const version = (apiVersion ?? "").split("/").pop() ?? "";
  // A custom resource of another kind decodes (unstructured) and fails validation, as kube-apiserver's.
  if (t.custom && kind !== undefined && kind !== expectedKind && resolved.subresource !== "scale")
    return Result.fail(
      Status.invalid(t.group, kind, str(metaOf(value).name) ?? "", [
        FieldError.invalid("kind", kind, `must be ${expectedKind}`),
      ]),
    );
  if (kind !== undefined && kind !== "" && kind !== expectedKind)
    return Result.fail(
      Status.badRequest(
        t.custom
          ? `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${expectedKind}: no kind "${kind}" is registered for version "${apiVersion ?? ""}"`
          : `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${expectedKind}: converting (${version}.${kind}) to (${t.group === "" ? "core" : t.group.split(".")[0]}.${expectedKind}): unknown conversion`,
      ),
    );
  if (!t.custom) {
    const mismatch =
      typedStringProblem(t.kind, value) ??
      (t.group === "coordination.k8s.io" && t.plural === "leases" ? leaseProblem(value) : undefined);
    if (mismatch !== undefined)
      return Result.fail(
        Status.badRequest(
          `${t.kind} in version "${resolved.version}" cannot be handled as a ${t.kind}: ${mismatch}`,
        ),
      );
  }
  const bytesField =
    t.custom || t.group !== ""
      ? undefined
      : t.plural === "secrets"
        ? "data"
        : t.plural === "configmaps"
          ? "binaryData"
          : undefined;
  if (bytesField !== undefined && isObject(value[bytesField]))
    for (const v of Object.values(value[bytesField] as JsonObject)) {
      const bad =
        typeof v === "string"
          ? base64Error(v)
          : "json: cannot unmarshal non-string into Go value of type []uint8";
      if (bad !== undefined)
        return Result.fail(
          Status.badRequest(
            `${t.kind} in version "${resolved.version}" cannot be handled as a ${t.kind}: ${bad}`,
          ),
        );
    }
  const expectedApi =
    resolved.subresource === "scale" ? "autoscaling/v1" : apiVersionOf(t.group, resolved.version);
  if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== expectedApi)
    return Result.fail(
      Status.badRequest(
        `the API version in the data (${apiVersion}) does not match the expected API version (${expectedApi})`,
      ),
    );
  return Result.succeed(value);
};
