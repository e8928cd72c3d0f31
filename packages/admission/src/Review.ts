/**
 * AdmissionReview requests as the API server sends them (`admission.k8s.io/v1`, and `v1beta1`
 * which Kopf's managed configurations also accept): decoding an untrusted JSON document into a
 * typed request, with an error naming what is wrong. Pure.
 */
import type { Operation } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import { Data, Result } from "effect";

/** The AdmissionReview API versions accepted (those the managed configurations declare). */
export const API_VERSIONS: ReadonlyArray<string> = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"];

/** The `{group, version, resource}` of a request. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** A decoded admission request (the `request` of an AdmissionReview). */
export interface Request {
  readonly uid: string;
  readonly resource: GroupVersionResource;
  /** `undefined` for the main body. */
  readonly subResource: string | undefined;
  readonly operation: Operation;
  readonly name: string | undefined;
  readonly namespace: string | undefined;
  readonly userInfo: Readonly<Record<string, unknown>>;
  readonly object: RawBody | undefined;
  readonly oldObject: RawBody | undefined;
  readonly dryRun: boolean;
}

/** A decoded AdmissionReview: the request and the envelope to echo back. */
export interface Review {
  readonly apiVersion: string;
  readonly kind: string;
  readonly request: Request;
}

/** What is wrong with a review. */
export type ReviewErrorReason =
  | "NotAnObject"
  | "NotAReview"
  | "UnsupportedVersion"
  | "MissingRequest"
  | "InvalidField"
  | "MissingUserInfo"
  | "MissingObject";

/** A document that is not a usable AdmissionReview (answered with HTTP 400). */
export class ReviewError extends Data.TaggedError("ReviewError")<{
  readonly reason: ReviewErrorReason;
  readonly message: string;
}> {}

type Json = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

const fail = (reason: ReviewErrorReason, message: string) =>
  Result.fail(new ReviewError({ reason, message }));

const optionalString = (request: Json, field: string): Result.Result<string | undefined, ReviewError> => {
  const value = request[field];
  if (value === undefined || value === null || value === "") return Result.succeed(undefined);
  return typeof value === "string"
    ? Result.succeed(value)
    : fail("InvalidField", `request.${field} must be a string; got ${JSON.stringify(value)}.`);
};

const optionalBody = (request: Json, field: string): Result.Result<RawBody | undefined, ReviewError> => {
  const value = request[field];
  if (value === undefined || value === null) return Result.succeed(undefined);
  return isRecord(value)
    ? Result.succeed(value as RawBody)
    : fail("InvalidField", `request.${field} must be an object; got ${JSON.stringify(value)}.`);
};

const resourceOf = (request: Json): Result.Result<GroupVersionResource, ReviewError> => {
  const value = request.resource;
  if (
    !isRecord(value) ||
    typeof value.group !== "string" ||
    typeof value.version !== "string" ||
    typeof value.resource !== "string" ||
    value.version === "" ||
    value.resource === ""
  ) {
    return fail(
      "InvalidField",
      `request.resource must be {group, version, resource} strings; got ${JSON.stringify(value ?? null)}.`,
    );
  }
  return Result.succeed({ group: value.group, version: value.version, resource: value.resource });
};

/**
 * Decodes a parsed JSON document as an AdmissionReview request.
 *
 * @example
 * ```ts
 * const review = Review.decode(JSON.parse(text))
 * if (Result.isSuccess(review)) review.success.request.uid
 * else review.failure.message // e.g. "request.uid must be a non-empty string; got 123."
 * ```
 */
export const decode = (document: unknown): Result.Result<Review, ReviewError> =>
  Result.gen(function* () {
    if (!isRecord(document)) {
      return yield* fail("NotAnObject", `An AdmissionReview must be a JSON object; got ${kindOf(document)}.`);
    }
    const { apiVersion, kind } = document;
    if (kind !== "AdmissionReview") {
      return yield* fail("NotAReview", `Expected kind AdmissionReview; got ${JSON.stringify(kind ?? null)}.`);
    }
    if (typeof apiVersion !== "string" || !API_VERSIONS.includes(apiVersion)) {
      return yield* fail(
        "UnsupportedVersion",
        `Unsupported AdmissionReview apiVersion ${JSON.stringify(apiVersion ?? null)}; expected one of ${API_VERSIONS.join(", ")}.`,
      );
    }
    const request = document.request;
    if (!isRecord(request)) {
      return yield* fail("MissingRequest", "The AdmissionReview has no request object.");
    }
    const uid = request.uid;
    if (typeof uid !== "string" || uid === "") {
      return yield* fail(
        "InvalidField",
        `request.uid must be a non-empty string; got ${JSON.stringify(uid ?? null)}.`,
      );
    }
    const operation = request.operation;
    if (typeof operation !== "string" || !OPERATIONS.has(operation)) {
      return yield* fail(
        "InvalidField",
        `request.operation must be CREATE, UPDATE, DELETE or CONNECT; got ${JSON.stringify(operation ?? null)}.`,
      );
    }
    const userInfo = request.userInfo;
    if (!isRecord(userInfo)) {
      return yield* fail("MissingUserInfo", "User info is missing from the admission request.");
    }
    const resource = yield* resourceOf(request);
    const subResource = yield* optionalString(request, "subResource");
    const name = yield* optionalString(request, "name");
    const namespace = yield* optionalString(request, "namespace");
    const object = yield* optionalBody(request, "object");
    const oldObject = yield* optionalBody(request, "oldObject");
    if (object === undefined && oldObject === undefined) {
      return yield* fail("MissingObject", "Either old or new object is missing from the admission request.");
    }
    const dryRun = request.dryRun;
    if (dryRun !== undefined && dryRun !== null && typeof dryRun !== "boolean") {
      return yield* fail("InvalidField", `request.dryRun must be a boolean; got ${JSON.stringify(dryRun)}.`);
    }
    return {
      apiVersion,
      kind,
      request: {
        uid,
        resource,
        subResource,
        operation: operation as Operation,
        name,
        namespace,
        userInfo,
        object,
        oldObject,
        dryRun: dryRun === true,
      },
    } satisfies Review;
  });

const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
