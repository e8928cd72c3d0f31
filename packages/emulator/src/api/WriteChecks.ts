/**
 * The checks a write passes before anything is staged: whether it is a dry run, the namespace's
 * lifecycle (NamespaceLifecycle admission: 404 for a missing namespace, 403 for creating in a
 * terminating one), and the body's resourceVersion as a precondition (409 on a stale one).
 */
import * as Result from "effect/Result";
import type { Core, Resolved } from "./internal/Core.ts";
import { type JsonObject, metaOf, str } from "./internal/Json.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import * as Status from "./Status.ts";
import { rvOf } from "./Store.ts";

/** Whether the request asks for a dry run (`?dryRun=All`). */
export const isDryRun = (query: URLSearchParams): boolean => query.getAll("dryRun").includes("All");

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
