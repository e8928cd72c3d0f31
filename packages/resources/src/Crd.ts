/**
 * The CustomResourceDefinition of a defined resource: names, scope, one entry per version with
 * its structural schema (`spec` required, `status` optional, `metadata` left to the server),
 * printer columns, the status and scale subresources, and a webhook `conversion` section when
 * there are several versions.
 */
import * as Result from "effect/Result";
import type { CustomResource, Definition, VersionDefinition, Versions } from "./CustomResource.ts";
import type { ResourceError } from "./Errors.ts";
import { type JsonSchemaProps, toOpenApi } from "./OpenApi.ts";

/** Where the API server reaches the conversion webhook. */
export type ConversionClientConfig =
  | { readonly url: string; readonly caBundle?: string }
  | {
      readonly service: {
        readonly namespace: string;
        readonly name: string;
        readonly path?: string;
        readonly port?: number;
      };
      readonly caBundle?: string;
    };

/** Options of the generated CRD. */
export interface CrdOptions {
  /** The conversion webhook's client config; without it, a placeholder URL on the default path. */
  readonly conversionClientConfig?: ConversionClientConfig;
}

/** The path the admission server serves a resource's conversion on. */
export const conversionPath = (group: string, plural: string): string => `/convert/${group}/${plural}`;

const versionSchema = (name: string, v: VersionDefinition): Result.Result<JsonSchemaProps, ResourceError> =>
  Result.gen(function* () {
    const spec = yield* toOpenApi(v.spec, "spec");
    const status = v.status === undefined ? undefined : yield* toOpenApi(v.status, "status");
    return {
      type: "object",
      description: `${name} of the resource`,
      properties: {
        apiVersion: { type: "string" },
        kind: { type: "string" },
        metadata: { type: "object" },
        spec,
        ...(status === undefined ? {} : { status }),
      },
      required: ["spec"],
    };
  });

const versionEntry = (name: string, v: VersionDefinition, storage: boolean) =>
  Result.map(versionSchema(name, v), (schema) => ({
    name,
    served: v.served ?? true,
    storage,
    ...(v.deprecated === undefined || v.deprecated === false ? {} : { deprecated: true }),
    ...(typeof v.deprecated === "string" ? { deprecationWarning: v.deprecated } : {}),
    schema: { openAPIV3Schema: schema },
    ...(v.status === undefined && v.scale === undefined
      ? {}
      : {
          subresources: {
            ...(v.status === undefined ? {} : { status: {} }),
            ...(v.scale === undefined ? {} : { scale: { ...v.scale } }),
          },
        }),
    ...(v.printerColumns === undefined || v.printerColumns.length === 0
      ? {}
      : { additionalPrinterColumns: v.printerColumns.map((c) => ({ ...c })) }),
  }));

const conversionOf = <V extends Versions, S extends keyof V & string>(
  d: Definition<V, S>,
  options: CrdOptions,
) =>
  d.conversion === undefined || Object.keys(d.versions).length < 2
    ? { strategy: "None" }
    : {
        strategy: "Webhook",
        webhook: {
          conversionReviewVersions: ["v1"],
          clientConfig: options.conversionClientConfig ?? {
            url: `https://localhost:9443${conversionPath(d.group, d.plural)}`,
          },
        },
      };

/**
 * The CRD of a defined resource, or the first field whose schema has no structural form.
 *
 * @example
 * const crd = Result.getOrThrow(fromResource(KopfExample))
 * crd.metadata.name // "kopfexamples.kopf.dev"
 */
export const fromResource = <V extends Versions, S extends keyof V & string>(
  resource: CustomResource<V, S> | Definition<V, S>,
  options: CrdOptions = {},
) =>
  Result.gen(function* () {
    const d = "definition" in resource ? resource.definition : resource;
    const versions: Array<unknown> = [];
    for (const [name, v] of Object.entries(d.versions))
      versions.push(yield* versionEntry(name, v, name === d.storage));
    return {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${d.plural}.${d.group}` },
      spec: {
        group: d.group,
        scope: d.scope ?? "Namespaced",
        names: {
          kind: d.kind,
          plural: d.plural,
          singular: d.singular ?? d.kind.toLowerCase(),
          listKind: `${d.kind}List`,
          ...(d.shortNames === undefined ? {} : { shortNames: [...d.shortNames] }),
          ...(d.categories === undefined ? {} : { categories: [...d.categories] }),
        },
        versions,
        conversion: conversionOf(d, options),
      },
    };
  });
