/**
 * The conversion webhooks of the operator's typed resources (`kopf.resource` with a
 * `conversion`): a `ConversionReview` POSTed to the admission server at
 * `{path}/convert/{group}/{plural}` is answered by converting its objects between the resource's
 * versions. The generated CRD (`kopf crd --conversion-url`) points its `conversion` there.
 */
import type { Registry } from "@kopf/registry";
import { ConversionReview } from "@kopf/resources";

/** The webhook id (the path after the server's prefix) of a resource's conversion. */
export const webhookOf = (group: string, plural: string): string => `convert/${group}/${plural}`;

/**
 * Whether a request body is a ConversionReview (rather than an AdmissionReview).
 *
 * @example
 * isReview({ apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", request: {} }) // true
 */
export const isReview = (body: unknown): boolean =>
  typeof body === "object" &&
  body !== null &&
  (body as { kind?: unknown }).kind === "ConversionReview" &&
  (body as { apiVersion?: unknown }).apiVersion === "apiextensions.k8s.io/v1";

/** The answer to a conversion request: the HTTP status and the body. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Answers a ConversionReview sent to `webhook`: the converted objects (or a failed result naming
 * the object that could not be converted), or 404 when no declared resource converts there.
 *
 * @example
 * answer(registry.resources, "convert/kopf.dev/widgets", review)
 * // { status: 200, body: { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview", response: {...} } }
 */
export const answer = (
  resources: ReadonlyArray<Registry.DeclaredResource>,
  webhook: string,
  review: unknown,
): Answer => {
  const resource = resources.find(
    (r) =>
      r.definition.conversion !== undefined && webhookOf(r.definition.group, r.definition.plural) === webhook,
  );
  return resource === undefined
    ? {
        status: 404,
        body: `No resource converts at ${webhook || "/"}: declare it with kopf.resource({ conversion })`,
      }
    : { status: 200, body: ConversionReview.review(resource, review) };
};

/**
 * Whether a registry declares resources whose conversion the admission server must serve.
 *
 * @example
 * hasConversions(registry) // true when a kopf.resource(...) has a conversion
 */
export const hasConversions = (registry: Registry.Registry<any>): boolean =>
  registry.resources.some((r) => r.definition.conversion !== undefined);
