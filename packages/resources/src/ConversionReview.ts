/**
 * Conversion between the versions of a defined resource, and the answer to a `ConversionReview`
 * the API server sends to a conversion webhook. Objects are decoded with their version's Schema,
 * converted through the storage version (hub and spoke), and encoded with the target version's
 * Schema; metadata and other top-level fields are kept as they are.
 */
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import {
  type Content,
  type CustomResource,
  contentSchema,
  decodeBody,
  type FieldIssue,
  type Versions,
} from "./CustomResource.ts";

type Json = { readonly [key: string]: unknown };

type Step = (content: Content<never>) => Content<never>;

const fail = (message: string) => Result.fail<string>(message);

const versionOf = (apiVersion: unknown, group: string): string | undefined =>
  typeof apiVersion === "string" && apiVersion.startsWith(`${group}/`)
    ? apiVersion.slice(group.length + 1)
    : undefined;

const issuesText = (issues: ReadonlyArray<FieldIssue>) =>
  issues.map((i) => `${i.path || "(body)"}: ${i.message}`).join("; ");

/**
 * Converts one object to `desiredApiVersion`, or says why it cannot.
 *
 * @example
 * convert(KopfExample, { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: {}, spec: { size: 1 } }, "kopf.dev/v2")
 * // Result.succeed({ apiVersion: "kopf.dev/v2", kind: "KopfExample", metadata: {}, spec: { replicas: 1 } })
 */
export const convert = <V extends Versions, S extends keyof V & string>(
  resource: CustomResource<V, S>,
  object: unknown,
  desiredApiVersion: string,
): Result.Result<Json, string> => {
  const d = resource.definition;
  if (typeof object !== "object" || object === null || Array.isArray(object))
    return fail("the object is not an object");
  const body = object as Json;
  const from = versionOf(body.apiVersion, d.group);
  const to = versionOf(desiredApiVersion, d.group);
  const fromDef = from === undefined ? undefined : d.versions[from];
  const toDef = to === undefined ? undefined : d.versions[to];
  if (from === undefined || fromDef === undefined)
    return fail(`unknown apiVersion ${String(body.apiVersion)}`);
  if (to === undefined || toDef === undefined) return fail(`unknown desired apiVersion ${desiredApiVersion}`);
  if (from === to) return Result.succeed(body);
  const decoded = decodeBody(fromDef, body);
  if (Result.isFailure(decoded))
    return fail(`${body.apiVersion} does not decode: ${issuesText(decoded.failure)}`);
  const steps = (d.conversion ?? {}) as Readonly<Record<string, { toStorage: Step; fromStorage: Step }>>;
  const source = decoded.success as unknown as Content<never>;
  const content: Content<never> = {
    spec: source.spec,
    ...(source.status === undefined ? {} : { status: source.status }),
  };
  const hub = from === d.storage ? content : steps[from]?.toStorage(content);
  const converted = hub === undefined ? undefined : to === d.storage ? hub : steps[to]?.fromStorage(hub);
  if (converted === undefined) return fail(`no conversion from ${from} to ${to}`);
  const encoded = Schema.encodeUnknownExit(contentSchema(toDef))(converted);
  if (encoded._tag === "Failure") return fail(`the ${to} content does not encode: ${String(encoded.cause)}`);
  const { status: _status, ...rest } = body;
  return Result.succeed({ ...rest, apiVersion: desiredApiVersion, ...(encoded.value as Json) });
};

/**
 * The `ConversionReview` answering one the API server sent: every object converted, or a failed
 * result naming the first that could not be.
 *
 * @example
 * review(KopfExample, { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview",
 *   request: { uid: "1", desiredAPIVersion: "kopf.dev/v2", objects: [v1Object] } })
 * // { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview",
 * //   response: { uid: "1", convertedObjects: [v2Object], result: { status: "Success" } } }
 */
export const review = <V extends Versions, S extends keyof V & string>(
  resource: CustomResource<V, S>,
  request: unknown,
): Json => {
  const r = (typeof request === "object" && request !== null ? (request as Json).request : undefined) as
    | Json
    | undefined;
  const uid = typeof r?.uid === "string" ? r.uid : "";
  const answer = (response: Json): Json => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    response: { uid, ...response },
  });
  const failed = (message: string) => answer({ result: { status: "Failure", message } });
  if (r === undefined || typeof r.desiredAPIVersion !== "string" || !Array.isArray(r.objects))
    return failed("not a ConversionReview request (uid, desiredAPIVersion, objects)");
  const converted: Array<Json> = [];
  for (const [i, object] of r.objects.entries()) {
    const result = convert(resource, object, r.desiredAPIVersion);
    if (Result.isFailure(result)) return failed(`objects[${i}]: ${result.failure}`);
    converted.push(result.success);
  }
  return answer({ convertedObjects: converted, result: { status: "Success" } });
};
