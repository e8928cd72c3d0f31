/**
 * AdmissionReview requests as the API server sends them (`admission.k8s.io/v1`, and `v1beta1`
 * which Kopf's managed configurations also accept): decoding an untrusted JSON document into a
 * typed request with an Effect `Schema`, and an error naming the field that is wrong, what it
 * should be and (briefly) what it is. The objects of the request (`object`, `oldObject`,
 * `userInfo`) are checked to be JSON objects and passed on as they are, never copied. Pure.
 */
import type { Operation } from "@kopf/registry";
import type { RawBody } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import * as Bounded from "./Bounded.ts";

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
  /** The field at fault, as written in the document (`request.uid`); `""` for the whole. */
  readonly field: string;
  readonly message: string;
}> {}

const expecting = (what: string) => ({ message: `expected ${what}` });

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON object, checked but kept as it is (no copy, so no key is ever interpreted). */
const object = (what: string) => Schema.declare(isObject, expecting(what));

const text = (what: string) => Schema.String.annotate(expecting(what));

const nonEmpty = (what: string) => text(what).pipe(Schema.check(Schema.isMinLength(1, expecting(what))));

/** An optional field that may also be `null`. */
const optional = <S extends Schema.Top>(schema: S, what: string) =>
  Schema.optional(Schema.NullOr(schema)).annotate(expecting(what));

/** The wire form of an AdmissionReview, as far as serving needs it. */
const ReviewSchema = Schema.Struct({
  kind: Schema.Literal("AdmissionReview").annotate(expecting("AdmissionReview")),
  apiVersion: Schema.Literals(API_VERSIONS).annotate(expecting(`one of ${API_VERSIONS.join(", ")}`)),
  request: Schema.Struct({
    uid: nonEmpty("a non-empty string"),
    operation: Schema.Literals(["CREATE", "UPDATE", "DELETE", "CONNECT"]).annotate(
      expecting("CREATE, UPDATE, DELETE or CONNECT"),
    ),
    userInfo: object("an object (the user making the request)"),
    resource: Schema.Struct({
      group: text("a string"),
      version: nonEmpty("a non-empty string"),
      resource: nonEmpty("a non-empty string"),
    }).annotate(expecting("{group, version, resource}")),
    subResource: optional(text("a string"), "a string"),
    name: optional(text("a string"), "a string"),
    namespace: optional(text("a string"), "a string"),
    object: optional(object("an object"), "an object"),
    oldObject: optional(object("an object"), "an object"),
    dryRun: optional(Schema.Boolean, "a boolean"),
  }).annotate(expecting("an object")),
});

const decodeSchema = Schema.decodeUnknownResult(ReviewSchema);

const MISSING = "\u0000missing";

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => (issue._tag === "MissingKey" ? MISSING : SchemaIssue.defaultLeafHook(issue)),
});

type Path = ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;

const keysOf = (path: Path): ReadonlyArray<PropertyKey> =>
  path.map((segment) => (typeof segment === "object" ? segment.key : segment));

const valueAt = (document: unknown, keys: ReadonlyArray<PropertyKey>): unknown =>
  keys.reduce<unknown>((value, key) => (isObject(value) ? value[key as string] : undefined), document);

const reasonOf = (field: string): ReviewErrorReason => {
  switch (field) {
    case "":
      return "NotAnObject";
    case "kind":
      return "NotAReview";
    case "apiVersion":
      return "UnsupportedVersion";
    case "request":
      return "MissingRequest";
    case "request.userInfo":
      return "MissingUserInfo";
    default:
      return "InvalidField";
  }
};

const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;

/** The error of the first issue found, naming its field (values quoted briefly, never in full). */
const errorOf = (document: unknown, issue: SchemaIssue.Issue): ReviewError => {
  const first = formatter(issue).issues[0];
  const keys = keysOf(first?.path ?? []);
  const field = keys.map(String).join(".");
  const message = first?.message ?? "invalid";
  const missing = message === MISSING;
  const text =
    field === ""
      ? `An AdmissionReview must be a JSON object; got ${kindOf(document)}.`
      : missing
        ? `${field} is missing from the AdmissionReview.`
        : `${field}: ${message}; got ${Bounded.preview(valueAt(document, keys))}.`;
  return new ReviewError({ reason: reasonOf(field), field, message: text });
};

const orUndefined = <A>(value: A | null | undefined | ""): A | undefined =>
  value === null || value === "" ? undefined : value;

/**
 * Decodes a parsed JSON document as an AdmissionReview request.
 *
 * @example
 * ```ts
 * const review = Review.decode(JSON.parse(text))
 * if (Result.isSuccess(review)) review.success.request.uid
 * else review.failure.message // e.g. "request.uid: expected a non-empty string; got 123."
 * ```
 */
export const decode = (document: unknown): Result.Result<Review, ReviewError> => {
  const decoded = decodeSchema(document, { errors: "first" });
  if (Result.isFailure(decoded)) return Result.fail(errorOf(document, decoded.failure.issue));
  const { apiVersion, kind, request } = decoded.success;
  const object = orUndefined(request.object) as RawBody | undefined;
  const oldObject = orUndefined(request.oldObject) as RawBody | undefined;
  if (object === undefined && oldObject === undefined) {
    return Result.fail(
      new ReviewError({
        reason: "MissingObject",
        field: "request.object",
        message: "Either old or new object is missing from the admission request.",
      }),
    );
  }
  return Result.succeed({
    apiVersion,
    kind,
    request: {
      uid: request.uid,
      resource: request.resource,
      subResource: orUndefined(request.subResource),
      operation: request.operation,
      name: orUndefined(request.name),
      namespace: orUndefined(request.namespace),
      userInfo: request.userInfo,
      object,
      oldObject,
      dryRun: request.dryRun === true,
    },
  });
};
