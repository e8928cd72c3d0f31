/**
 * Create, update (PUT) and patch of objects and of their `status` subresource: body checks, the
 * system fields, optimistic concurrency on resourceVersion, no-op detection, and the commit.
 */
import { Effect, Result } from "effect";
import * as Admit from "./Admit.ts";
import * as Body from "./Body.ts";
import type { ApiRequest } from "./Emulator.ts";
import * as FieldError from "./FieldError.ts";
import { type Core, json, type Resolved, type Response } from "./internal/Core.ts";
import { isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import * as ManagedFields from "./ManagedFields.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import { apiVersionOf } from "./ResourceType.ts";
import * as Status from "./Status.ts";
import { nameOf, rvOf } from "./Store.ts";

export const isDryRun = (query: URLSearchParams): boolean => query.getAll("dryRun").includes("All");

/** The field manager of a write: `fieldManager`, else the user agent's product name, as the apiserver defaults it. */
export const managerOf = (request: ApiRequest): string => {
  const explicit = request.query.get("fieldManager");
  if (explicit !== null && explicit !== "") return explicit;
  const product = (request.headers["user-agent"] ?? "").split("/")[0] ?? "";
  let out = "";
  for (const ch of product) {
    if (/\p{C}/u.test(ch)) continue;
    if (new TextEncoder().encode(out + ch).length > 128) break;
    out += ch;
  }
  return out === "" ? "unknown" : out;
};

const goJsonType = (v: unknown): string =>
  Array.isArray(v)
    ? "array"
    : v === null
      ? "null"
      : typeof v === "object"
        ? "object"
        : typeof v === "boolean"
          ? "bool"
          : typeof v;

/** The typed decoder's error for a string field or string map holding another JSON type. */
const typedStringProblem = (kind: string, value: JsonObject): string | undefined => {
  const meta = value.metadata;
  const wrong = (v: unknown) => v !== undefined && v !== null && typeof v !== "string";
  const unmarshal = (v: unknown, field: string) =>
    `json: cannot unmarshal ${goJsonType(v)} into Go struct field ${field} of type string`;
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
    const mismatch = typedStringProblem(t.kind, value);
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

/** 404 for a missing namespace, 403 for a terminating one (NamespaceLifecycle admission). */
export const checkNamespace = (
  core: Core,
  resolved: Resolved,
  name: string,
  creating: boolean,
): Status.ApiError | undefined => {
  if (!resolved.type.namespaced || resolved.namespace === undefined) return undefined;
  const ns = core.store.table("", "namespaces")?.get("", resolved.namespace);
  if (ns === undefined) return Status.notFound({ group: "", resource: "namespaces" }, resolved.namespace);
  if (creating && ObjectMeta.isDeleting(ns))
    return Status.forbidden(
      resolved.gr,
      name,
      `unable to create new content in namespace ${resolved.namespace} because it is being terminated`,
      [
        {
          reason: "NamespaceTerminating",
          message: `namespace ${resolved.namespace} is being terminated`,
          field: "metadata.namespace",
        },
      ],
    );
  return undefined;
};

const served = (resolved: Resolved, obj: JsonObject): JsonObject =>
  ObjectMeta.serve(resolved.type, resolved.version, obj);

/** POST to a collection. */
export const create = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  if (resolved.subresource !== undefined) return yield* Effect.fail(Status.methodNotAllowed());
  if (resolved.type.custom) {
    const crd = core.store
      .table("apiextensions.k8s.io", "customresourcedefinitions")
      ?.get("", `${resolved.type.plural}.${resolved.type.group}`);
    if (crd !== undefined && ObjectMeta.isDeleting(crd)) {
      const body = Body.decode(request.body, false);
      const name =
        Result.isSuccess(body) && isObject(body.success) ? (str(metaOf(body.success).name) ?? "") : "";
      return yield* Effect.fail(
        Status.forbidden(
          resolved.gr,
          name,
          "create not allowed while custom resource definition is terminating",
        ),
      );
    }
  }
  const decoded = yield* Effect.fromResult(
    Body.decodeObjectBody(request.headers, request.body, resolved.type.kind, !resolved.type.custom),
  );
  const body = yield* Effect.fromResult(checkBody(resolved, decoded, request.body));
  return yield* createFromBody(
    core,
    resolved,
    request,
    body,
    (obj, now) => ManagedFields.track(undefined, obj, managerOf(request), "Update", undefined, now, resolved),
    true,
  );
});

/** Creates an object from a checked body; `manage` records the managedFields of the new object. */
export const createFromBody = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  body: JsonObject,
  manage: (obj: JsonObject, now: number) => JsonObject,
  rejectResourceVersion = false,
) {
  const meta = metaOf(body);
  if (
    resolved.type.namespaced &&
    typeof meta.namespace === "string" &&
    meta.namespace !== "" &&
    meta.namespace !== resolved.namespace
  )
    return yield* Effect.fail(
      Status.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      ),
    );
  const now = core.now();
  const decoded = ObjectMeta.decodeForCreate(resolved.type, resolved.namespace, body);
  const normalized = yield* Effect.fromResult(Admit.normalizeChecked(resolved.type, decoded, request.query));
  const nsProblem = checkNamespace(core, resolved, nameOf(normalized.object), true);
  if (nsProblem !== undefined) return yield* Effect.fail(nsProblem);
  const dryRun = isDryRun(request.query);
  const admitted = yield* Admit.admit({
    core,
    resolved,
    operation: "CREATE",
    object: manage(normalized.object, now),
    oldObject: undefined,
    warnings: normalized.warnings,
    options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    user: request.user,
    dryRun,
    prepare: (mutated) => ObjectMeta.prepareCreate(resolved.type, mutated, now, core.random),
  });
  const final = admitted.object as JsonObject;
  const finalName = nameOf(final);
  if (rejectResourceVersion && (str(meta.resourceVersion) ?? "") !== "")
    return yield* Effect.fail(
      Status.make(500, undefined, "resourceVersion should not be set on objects to be created"),
    );
  const existing = resolved.table.get(resolved.namespace ?? "", finalName);
  if (existing !== undefined)
    return yield* Effect.fail(
      ObjectMeta.isDeleting(existing)
        ? Status.make(
            409,
            "AlreadyExists",
            `object is being deleted: ${Status.qualified(resolved.gr)} ${JSON.stringify(finalName)} already exists`,
            Status.alreadyExists(resolved.gr, finalName).status.details,
          )
        : Status.alreadyExists(resolved.gr, finalName),
    );
  const nsAgain = checkNamespace(core, resolved, finalName, true);
  if (nsAgain !== undefined) return yield* Effect.fail(nsAgain);
  if (dryRun) return json(201, served(resolved, final), admitted.warnings);
  const stored = core.store.put(resolved.table, final, undefined);
  core.afterChange(resolved.table, stored, false);
  return json(201, served(resolved, stored), admitted.warnings);
});

/** Stores an update computed from the current object; retried when the object changed meanwhile. */
export const commitUpdate = Effect.fnUntraced(function* (
  core: Core,
  resolved: Resolved,
  request: ApiRequest,
  compute: (
    current: JsonObject,
  ) => Effect.Effect<
    { readonly next: JsonObject; readonly strictRv: boolean; readonly warnings?: ReadonlyArray<string> },
    Status.ApiError
  >,
  createIfMissing?: () => Effect.Effect<Response, Status.ApiError>,
) {
  const ns = resolved.namespace ?? "";
  const name = resolved.name ?? "";
  for (let attempt = 0; ; attempt++) {
    const current = resolved.table.get(ns, name);
    if (current === undefined) {
      if (createIfMissing !== undefined) return yield* createIfMissing();
      return yield* Effect.fail(Status.notFound(resolved.gr, name));
    }
    const { next, strictRv, warnings } = yield* compute(current);
    const dryRun = isDryRun(request.query);
    const admitted = yield* Admit.admit({
      core,
      resolved,
      operation: "UPDATE",
      object: next,
      oldObject: current,
      warnings: warnings ?? [],
      options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1" },
      user: request.user,
      dryRun,
    });
    const final = admitted.object as JsonObject;
    const latest = resolved.table.get(ns, name);
    if (latest !== current) {
      if (strictRv || attempt >= 8)
        return yield* Effect.fail(Status.conflict(resolved.gr, name, Status.OBJECT_MODIFIED));
      continue;
    }
    if (ObjectMeta.isNoop(current, final) || dryRun)
      return json(200, served(resolved, dryRun ? final : current), admitted.warnings);
    if (ObjectMeta.canBeRemoved(final)) {
      const gone = core.store.remove(resolved.table, final);
      core.afterChange(resolved.table, gone, true);
      return json(200, served(resolved, gone), admitted.warnings);
    }
    const stored = core.store.put(resolved.table, final, current);
    core.afterChange(resolved.table, stored, false);
    return json(200, served(resolved, stored), admitted.warnings);
  }
});

/** Checks a body's resourceVersion against the current object (409 on a stale one). */
export const checkResourceVersion = (
  resolved: Resolved,
  body: JsonObject,
  current: JsonObject,
  required: boolean,
): Result.Result<boolean, Status.ApiError> => {
  const rv = str(metaOf(body).resourceVersion) ?? "";
  if (rv === "") {
    if (!required) return Result.succeed(false);
    return Result.fail(
      Status.invalid(resolved.type.group, resolved.type.plural, resolved.name ?? "", [
        {
          type: "FieldValueInvalid",
          field: "metadata.resourceVersion",
          value: 0,
          detail: "must be specified for an update",
        },
      ]),
    );
  }
  if (rv !== rvOf(current))
    return Result.fail(Status.conflict(resolved.gr, resolved.name ?? "", Status.OBJECT_MODIFIED));
  return Result.succeed(true);
};

/** PUT of an object or its status. */
export const update = Effect.fnUntraced(function* (core: Core, resolved: Resolved, request: ApiRequest) {
  const decoded = yield* Effect.fromResult(
    Body.decodeObjectBody(request.headers, request.body, resolved.type.kind, !resolved.type.custom),
  );
  const body = yield* Effect.fromResult(checkBody(resolved, decoded, request.body));
  const meta = metaOf(body);
  const bodyName = str(meta.name) ?? "";
  if (bodyName !== "" && bodyName !== resolved.name)
    return yield* Effect.fail(
      Status.badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${resolved.name ?? ""})`,
      ),
    );
  if (
    resolved.type.namespaced &&
    typeof meta.namespace === "string" &&
    meta.namespace !== "" &&
    meta.namespace !== resolved.namespace
  )
    return yield* Effect.fail(
      Status.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      ),
    );
  const withIds: JsonObject = {
    ...body,
    metadata: {
      ...meta,
      name: resolved.name,
      ...(resolved.type.namespaced ? { namespace: resolved.namespace } : {}),
    },
  };
  return yield* commitUpdate(core, resolved, request, (current) =>
    Effect.gen(function* () {
      const strictRv = yield* Effect.fromResult(
        checkResourceVersion(resolved, withIds, current, !resolved.type.allowUnconditionalUpdate),
      );
      let next = ObjectMeta.prepareUpdate(
        resolved.type,
        current,
        withIds,
        resolved.subresource === "status" ? "status" : undefined,
      );
      const normalized = yield* Effect.fromResult(Admit.normalizeChecked(resolved.type, next, request.query));
      next = ManagedFields.track(
        current,
        normalized.object,
        managerOf(request),
        "Update",
        resolved.subresource,
        core.now(),
        resolved,
      );
      return { next, strictRv, warnings: normalized.warnings };
    }),
  );
});
