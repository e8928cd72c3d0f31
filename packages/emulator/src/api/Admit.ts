/**
 * The shared tail of every write: custom-resource pruning and defaulting, admission (mutating
 * webhooks' patches applied, then validating webhooks) and validation into a 422, in the order the
 * apiserver runs them; then the stored-size limit, checked by the writes on what they store.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import type { AdmissionOperation, AdmissionRequest, UserInfo } from "./Admission.ts";
import { MAX_OBJECT_BYTES } from "./Body.ts";
import * as BuiltinFields from "./BuiltinFields.ts";
import * as BuiltinValidation from "./BuiltinValidation.ts";
import { canonical } from "./Canonical.ts";
import * as Crd from "./Crd.ts";
import type { Core, Resolved } from "./internal/Core.ts";
import { isObject, type JsonObject, metaOf, storedJson, str } from "./internal/Json.ts";
import * as JsonPatch from "./JsonPatch.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import type { ResourceType } from "./ResourceType.ts";
import * as Schema from "./Schema.ts";
import * as Status from "./Status.ts";
import * as Validation from "./Validation.ts";

/**
 * Prunes a custom resource with the schema of its storage version, drops its non-nullable `null`s,
 * and defaults it, in kube-apiserver's order.
 */
export const normalize = (type: ResourceType, obj: JsonObject, dropped: Array<string> = []): JsonObject => {
  const schema = type.schemas.get(type.storageVersion);
  if (!type.custom || schema === undefined) return obj;
  const pruned = Schema.dropNonNullableNulls(Schema.prune(obj, schema, dropped), schema);
  return Schema.prune(Schema.applyDefaults(pruned, schema), schema);
};

export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** The `fieldValidation` directive of a write (Warn when not given, as the apiserver defaults it). */
export const fieldValidationOf = (
  query: URLSearchParams,
): Result.Result<FieldValidation, Status.ApiError> => {
  const raw = query.get("fieldValidation") ?? "";
  if (raw === "") return Result.succeed("Warn");
  const found = (["Ignore", "Warn", "Strict"] as const).find((d) => d.toLowerCase() === raw.toLowerCase());
  return found === undefined
    ? Result.fail(
        Status.badRequest(
          `fieldValidation: Unsupported value: ${JSON.stringify(raw)}: supported values: "Ignore", "Strict", "Warn"`,
        ),
      )
    : Result.succeed(found);
};

/**
 * Normalizes an object under a field validation directive (a custom resource by its schema, a
 * built-in one by its kind's top-level fields): unknown fields are dropped (Ignore), dropped with
 * warnings (Warn), or rejected with 400 (Strict).
 */
export const normalizeChecked = (
  type: ResourceType,
  obj: JsonObject,
  query: URLSearchParams,
): Result.Result<
  { readonly object: JsonObject; readonly warnings: ReadonlyArray<string> },
  Status.ApiError
> => {
  const directive = fieldValidationOf(query);
  if (Result.isFailure(directive)) return Result.fail(directive.failure);
  const dropped: Array<string> = [];
  const object = type.custom ? normalize(type, obj, dropped) : BuiltinFields.prune(type, obj, dropped);
  const messages = dropped.map((p) => `unknown field ${JSON.stringify(p)}`);
  if (messages.length > 0 && directive.success === "Strict")
    return Result.fail(
      Status.badRequest(
        `${type.kind} in version ${JSON.stringify(type.storageVersion)} cannot be handled as a ${type.kind}: strict decoding error: ${messages.join(", ")}`,
      ),
    );
  return Result.succeed({ object, warnings: directive.success === "Warn" ? messages : [] });
};

/** All validation errors of an object about to be stored, as a 422 (or undefined when valid). */
export const validate = (
  type: ResourceType,
  obj: JsonObject,
  old: JsonObject | undefined,
): Status.ApiError | undefined => {
  const meta = metaOf(obj);
  // An update is checked by the common object-meta rules, then by the type's strategy, which
  // repeats them: its causes list metadata errors twice (the message, aggregated, once).
  const metaErrors = Validation.validateMetadata(meta, type.nameRule, type.namespaced);
  const updateErrors = old === undefined ? [] : Validation.validateMetadataUpdate(meta, metaOf(old));
  const errors =
    old === undefined
      ? metaErrors
      : [
          ...Validation.validateMetadata(meta, "path", type.namespaced),
          ...updateErrors,
          ...updateErrors,
          ...metaErrors,
        ];
  const schema = type.schemas.get(type.storageVersion);
  if (type.custom && schema !== undefined) errors.push(...Schema.validate(obj, schema));
  if (type.group === "apiextensions.k8s.io" && type.plural === "customresourcedefinitions")
    errors.push(...Crd.validateCrd(obj));
  errors.push(...BuiltinValidation.validate(type, obj, old));
  if (errors.length === 0) return undefined;
  return Status.invalid(type.group, type.kind, str(meta.name) ?? str(meta.generateName) ?? "", errors);
};

/**
 * The 413 etcd answers for an object too large to store, checked on the object as the store will
 * keep it ({@link Store.stage}): its text is the one the write's response and watch events send.
 */
export const checkStoredSize = (staged: JsonObject): Status.ApiError | undefined =>
  storedJson(staged).length > MAX_OBJECT_BYTES
    ? Status.requestEntityTooLarge("etcdserver: request is too large")
    : undefined;

export interface AdmitInput {
  /** What the registry does between mutating admission and validation (e.g. system fields on create). */
  readonly prepare?: (mutated: JsonObject) => JsonObject;
  /** Warnings gathered before admission (e.g. unknown fields). */
  readonly warnings?: ReadonlyArray<string>;
  readonly core: Core;
  readonly resolved: Resolved;
  readonly operation: AdmissionOperation;
  readonly object: JsonObject | undefined;
  readonly oldObject: JsonObject | undefined;
  readonly options: unknown;
  readonly user: UserInfo;
  readonly dryRun: boolean;
}

/**
 * The request admission sees for a write. `object` and `oldObject` (the objects as a webhook gets
 * them) are built when first read: the default hook and webhook configurations whose rules do not
 * match never read them. A class, not an object literal with getters: V8 makes a literal with
 * accessors on a slow path (a new hidden class for every one, ~2 µs each; twice per write).
 */
class WriteAdmissionRequest implements AdmissionRequest {
  readonly operation: AdmissionOperation;
  readonly kind: AdmissionRequest["kind"];
  readonly resource: AdmissionRequest["resource"];
  readonly subResource: string;
  readonly requestKind: AdmissionRequest["kind"];
  readonly requestResource: AdmissionRequest["resource"];
  readonly requestSubResource: string;
  readonly name: string;
  readonly namespace: string;
  readonly options: unknown;
  readonly dryRun: boolean;
  readonly userInfo: UserInfo;
  readonly namespaced: boolean;
  readonly #input: AdmitInput;
  readonly #object: JsonObject | undefined;
  #served: unknown;
  #servedOld: unknown;

  constructor(input: AdmitInput, object: JsonObject | undefined) {
    const { resolved } = input;
    const t = resolved.type;
    const version = resolved.version;
    const kind =
      resolved.subresource === "scale"
        ? { group: "autoscaling", version: "v1", kind: "Scale" }
        : { group: t.group, version, kind: t.kind };
    const resource = { group: t.group, version, resource: t.plural };
    const target = object ?? input.oldObject;
    this.operation = input.operation;
    this.kind = kind;
    this.resource = resource;
    this.subResource = resolved.subresource ?? "";
    this.requestKind = kind;
    this.requestResource = resource;
    this.requestSubResource = resolved.subresource ?? "";
    this.name = (target === undefined ? undefined : str(metaOf(target).name)) ?? resolved.name ?? "";
    this.namespace = resolved.namespace ?? "";
    this.options = input.options;
    this.dryRun = input.dryRun;
    this.userInfo = input.user;
    this.namespaced = t.namespaced;
    this.#input = input;
    this.#object = object;
  }

  get object(): unknown {
    this.#served ??= this.#serve(this.#object);
    return this.#served;
  }

  get oldObject(): unknown {
    this.#servedOld ??= this.#serve(this.#input.oldObject);
    return this.#servedOld;
  }

  #serve(object: JsonObject | undefined): unknown {
    const { type, version } = this.#input.resolved;
    return object === undefined ? null : canonical(type.custom, ObjectMeta.serve(type, version, object));
  }
}

const requestOf = (input: AdmitInput, object: JsonObject | undefined): AdmissionRequest =>
  new WriteAdmissionRequest(input, object);

const denied = (status: Status.Status) =>
  new Status.ApiError({ reason: status.reason ?? "BadRequest", status });

/**
 * Runs mutating then validating admission and validation for a write; answers the object to store
 * and the warnings gathered. A failure carries the warnings gathered before it (the client gets
 * them with the error, as from kube-apiserver).
 */
export const admit = (input: AdmitInput) => {
  const warnings: Array<string> = [...(input.warnings ?? [])];
  return admitting(input, warnings).pipe(
    Effect.mapError((error) => Status.withWarnings(error, warnings)),
    Effect.map((object) => ({ object, warnings: warnings as ReadonlyArray<string> })),
  );
};

const admitting = Effect.fnUntraced(function* (input: AdmitInput, warnings: Array<string>) {
  const { core, resolved } = input;
  let object = input.object;
  const mutation = yield* core.admission.mutate(requestOf(input, object), core.reader);
  warnings.push(...(mutation.warnings ?? []));
  if (mutation._tag === "Deny") return yield* Effect.fail(denied(mutation.status));
  if (object !== undefined && mutation.patches.length > 0) {
    const patched = JsonPatch.apply(object, mutation.patches);
    if (Result.isFailure(patched) || !isObject(patched.success))
      return yield* Effect.fail(
        Status.internal(
          `admission webhook patch failed: ${Result.isFailure(patched) ? patched.failure : "not an object"}`,
        ),
      );
    object = normalize(resolved.type, ObjectMeta.toStorage(resolved.type, patched.success));
  }
  if (object !== undefined && input.prepare !== undefined) object = input.prepare(object);
  if (object !== undefined) {
    const invalid = validate(resolved.type, object, input.oldObject);
    if (invalid !== undefined) return yield* Effect.fail(invalid);
  }
  const validation = yield* core.admission.validate(requestOf(input, object), core.reader);
  warnings.push(...(validation.warnings ?? []));
  if (validation._tag === "Deny") return yield* Effect.fail(denied(validation.status));
  return object;
});
