/**
 * The options of a DELETE request (`DeleteOptions`), from its body or, without one, its query:
 * preconditions, `propagationPolicy` and the legacy `orphanDependents`, `dryRun`, checked with
 * kube-apiserver's errors, and kept in Go's field order for admission webhooks.
 */
import * as Result from "effect/Result";
import * as Body from "./Body.ts";
import type { ApiRequest } from "./Emulator.ts";
import * as FieldError from "./FieldError.ts";
import { asObject, isObject, type JsonObject, str } from "./internal/Json.ts";
import * as Status from "./Status.ts";

/** How dependents are handled (`propagationPolicy`); none given: the resource's default. */
export type Propagation = "Orphan" | "Background" | "Foreground";

/** A DELETE request's options, checked. */
export interface DeleteOptions {
  readonly propagation: Propagation | undefined;
  readonly orphanDependents: boolean | undefined;
  readonly uid: string | undefined;
  readonly resourceVersion: string | undefined;
  readonly dryRun: boolean;
  /** The options as admission webhooks get them (`request.options`), in Go's field order. */
  readonly raw: JsonObject;
}

/** DeleteOptions' fields in Go struct order (how kube-apiserver writes them). */
const FIELD_ORDER = [
  "gracePeriodSeconds",
  "preconditions",
  "orphanDependents",
  "propagationPolicy",
  "dryRun",
  "ignoreStoreReadErrorWithClusterBreakingPotential",
];

/** The DeleteOptions a query gives (used only when the request has no body). */
const fromQuery = (q: URLSearchParams): JsonObject => {
  const grace = q.get("gracePeriodSeconds");
  const orphan = q.get("orphanDependents");
  const policy = q.get("propagationPolicy");
  const dryRun = q.getAll("dryRun");
  return {
    ...(grace !== null && /^-?\d+$/.test(grace) ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(orphan === null ? {} : { orphanDependents: orphan === "true" }),
    ...(policy === null || policy === "" ? {} : { propagationPolicy: policy }),
    ...(dryRun.length === 0 ? {} : { dryRun }),
  };
};

/** Options kube-apiserver refuses: 422 with the field's error. */
const refused = (error: FieldError.FieldError) =>
  Result.fail(Status.invalid("meta.k8s.io", "DeleteOptions", "", [error]));

/**
 * DeleteOptions from the body (JSON) or, when there is no body, from the query — never both: as
 * kube-apiserver's delete handler decodes them, a body's options are all there is (a `?dryRun=All`
 * next to a body is ignored). Bad options fail with kube-apiserver's status.
 *
 * @example
 * parseOptions({ ...request, query: new URLSearchParams("propagationPolicy=Foreground") })
 * // Result.succeed({ propagation: "Foreground", dryRun: false, … })
 */
export const parseOptions = (request: ApiRequest): Result.Result<DeleteOptions, Status.ApiError> => {
  let body: JsonObject;
  if (request.body !== undefined && request.body.byteLength > 0) {
    const decoded = Body.decodeObjectBody(request.headers, request.body, "DeleteOptions");
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure);
    if (!isObject(decoded.success))
      return Result.fail(Status.badRequest("the DeleteOptions body must be a JSON object"));
    const { kind: _kind, apiVersion: _apiVersion, ...options } = decoded.success;
    body = options;
  } else body = fromQuery(request.query);
  const policy = str(body.propagationPolicy);
  if (policy !== undefined && policy !== "Orphan" && policy !== "Background" && policy !== "Foreground")
    return refused(
      FieldError.notSupported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]),
    );
  const orphanDependents = typeof body.orphanDependents === "boolean" ? body.orphanDependents : undefined;
  if (orphanDependents !== undefined && policy !== undefined)
    return refused(
      FieldError.invalid(
        "propagationPolicy",
        policy,
        "orphanDependents and deletionPropagation cannot be both set",
      ),
    );
  const dryRun = Array.isArray(body.dryRun) ? body.dryRun : [];
  if (dryRun.some((v) => v !== "All")) return refused(FieldError.notSupported("dryRun", dryRun, ["All"]));
  const pre = asObject(body.preconditions);
  const ordered: JsonObject = { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" };
  for (const key of [...FIELD_ORDER, ...Object.keys(body)])
    if (Object.hasOwn(body, key)) ordered[key] = body[key];
  return Result.succeed({
    propagation: policy,
    orphanDependents,
    uid: str(pre.uid),
    resourceVersion: str(pre.resourceVersion),
    dryRun: dryRun.length > 0,
    raw: ordered,
  });
};
