/**
 * One definition of a custom resource: names, scope, versions with `spec`/`status` Schemas,
 * printer columns, subresources and the conversion between versions. From it come the CRD
 * (`Crd.fromResource`), the typed bodies handlers receive, and their decoding (`Decoding`).
 */
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaIssue from "effect/SchemaIssue";
import { ResourceError } from "./Errors.ts";
import { dropNonNullableNulls } from "./internal/nulls.ts";
import { type JsonSchemaProps, toOpenApi } from "./OpenApi.ts";

/** An additional printer column (`kubectl get` output). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: "integer" | "number" | "string" | "boolean" | "date";
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  readonly priority?: number;
}

/** The scale subresource: where the replicas are in the spec and status. */
export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

/** One version of a resource. */
export interface VersionDefinition<
  Spec extends Schema.Top = Schema.Top,
  Status extends Schema.Top = Schema.Top,
> {
  readonly spec: Spec;
  /** The status Schema; with it the CRD gets the status subresource. */
  readonly status?: Status;
  /** Whether the API serves this version (default `true`). */
  readonly served?: boolean;
  /** Deprecated: `true`, or the warning clients get. */
  readonly deprecated?: boolean | string;
  readonly printerColumns?: ReadonlyArray<PrinterColumn>;
  readonly scale?: ScaleSubresource;
}

/** The versions of a resource by name (`v1`, `v2beta1`, …). */
export type Versions = { readonly [version: string]: VersionDefinition<Schema.Top, Schema.Top> };

/** The decoded `spec`/`status` of one version, what conversion functions take and give. */
export type Content<V extends VersionDefinition> = ContentOf<SpecType<V>, StatusType<V>>;

/** The decoded `spec` type of a version. */
export type SpecType<V> = V extends { readonly spec: infer S extends Schema.Top } ? S["Type"] : never;

/** The decoded `status` type of a version (`unknown` without a status Schema). */
export type StatusType<V> = V extends { readonly status: infer S extends Schema.Top } ? S["Type"] : unknown;

/** A `spec` and an optional `status`. */
export type ContentOf<Spec, Status> = { readonly spec: Spec; readonly status?: Status };

/** The minimal metadata of a body (the rest of `ObjectMeta` is there, untyped). */
export interface Metadata {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

/**
 * The typed body of one version: decoded `spec` and (when present) `status`. The `~kopf/typed`
 * marker tells the handler contexts that `spec` is exact rather than a partial view.
 */
export type TypedBody<V extends VersionDefinition> = Content<V> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: Metadata;
  readonly "~kopf/typed"?: true;
};

/** Hub-and-spoke conversion: every other version to and from the storage version. */
export type Conversion<V extends Versions, S extends keyof V> = {
  readonly [K in Exclude<keyof V, S>]: {
    readonly toStorage: (
      content: ContentOf<SpecType<V[K]>, StatusType<V[K]>>,
    ) => ContentOf<SpecType<V[S]>, StatusType<V[S]>>;
    readonly fromStorage: (
      content: ContentOf<SpecType<V[S]>, StatusType<V[S]>>,
    ) => ContentOf<SpecType<V[K]>, StatusType<V[K]>>;
  };
};

/** What `define` takes. */
export interface Definition<V extends Versions, S extends keyof V & string> {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  /** Default: the kind in lower case. */
  readonly singular?: string;
  /** Default: `Namespaced`. */
  readonly scope?: "Namespaced" | "Cluster";
  readonly shortNames?: ReadonlyArray<string>;
  readonly categories?: ReadonlyArray<string>;
  readonly versions: V;
  /** The version objects are stored in. */
  readonly storage: S;
  /**
   * How other versions convert to and from the storage one; the admission server offers it as
   * the CRD's conversion webhook. Without it, the API server only rewrites `apiVersion`.
   */
  readonly conversion?: Conversion<V, S>;
}

/** The symbol under which a value carries a served version of a custom resource. */
export const SERVED: unique symbol = Symbol.for("@kopf/resources/served");

/** A field that did not decode: its path (`spec.size`) and what was wrong with it. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** One served version of a resource: its names and the decoding of bodies to `B`. */
export interface Served<B> {
  readonly [SERVED]: {
    readonly group: string;
    readonly version: string;
    readonly plural: string;
    readonly decode: (body: unknown) => Result.Result<B, ReadonlyArray<FieldIssue>>;
  };
}

/** A defined custom resource: the storage version's handlers target, and every version's. */
export interface CustomResource<V extends Versions, S extends keyof V & string>
  extends Served<TypedBody<V[S]>> {
  readonly definition: Definition<V, S>;
  /** One version, for handlers that watch it (or webhooks that see it). */
  readonly version: <K extends keyof V & string>(version: K) => Served<TypedBody<V[K]>>;
  /** The Schema of a version's `{ spec, status }` content. */
  readonly contentSchema: (version: keyof V & string) => Schema.Codec<unknown, unknown>;
}

/** The content Schema of a version: `spec` required, `status` optional. */
export const contentSchema = (v: VersionDefinition): Schema.Codec<unknown, unknown> =>
  Schema.Struct({
    spec: v.spec,
    ...(v.status === undefined ? {} : { status: Schema.optionalKey(v.status) }),
  }) as unknown as Schema.Codec<unknown, unknown>;

const pathOf = (path: ReadonlyArray<unknown>): string =>
  path
    .map((segment) =>
      typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment,
    )
    .reduce<string>(
      (acc, key) =>
        typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`,
      "",
    );

const formatter = SchemaIssue.makeFormatterStandardSchemaV1();

const openApis = new WeakMap<
  VersionDefinition,
  readonly [JsonSchemaProps | undefined, JsonSchemaProps | undefined]
>();

/** The OpenAPI forms of a version's spec and status (computed once; `undefined` without one). */
const openApiOf = (version: VersionDefinition) => {
  const known = openApis.get(version);
  if (known !== undefined) return known;
  const of = (s: Schema.Top | undefined) =>
    s === undefined ? undefined : Result.getOrUndefined(toOpenApi(s));
  const computed = [of(version.spec), of(version.status)] as const;
  openApis.set(version, computed);
  return computed;
};

/**
 * Decodes a body's `spec`/`status` with a version's Schemas into a typed body (defaults filled
 * in, undeclared fields dropped, `null`s of non-nullable fields dropped first, as the API server
 * stores it); the other top-level fields are kept. Fails with every field that does
 * not decode.
 *
 * @example
 * decodeBody(v1, { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: {}, spec: { size: "x" } })
 * // Result.fail([{ path: "spec.size", message: "Expected number, got \"x\"" }])
 */
export const decodeBody = <V extends VersionDefinition>(
  version: V,
  body: unknown,
): Result.Result<TypedBody<V>, ReadonlyArray<FieldIssue>> => {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return Result.fail([{ path: "", message: "the body is not an object" }]);
  const record = body as Readonly<Record<string, unknown>>;
  const [specSchema, statusSchema] = openApiOf(version);
  const content = dropNonNullableNulls(
    { spec: record.spec, status: record.status },
    { type: "object", properties: { spec: specSchema ?? {}, status: statusSchema ?? {} } },
  ) as { readonly spec?: unknown; readonly status?: unknown };
  const { spec, status } = content;
  const { spec: _spec, status: _status, ...others } = record;
  // Without a status Schema, the status is kept as it is (less its dropped nulls).
  const rest = version.status !== undefined || status === undefined ? others : { ...others, status };
  const input = {
    ...(spec === undefined ? {} : { spec }),
    ...(status === undefined || version.status === undefined ? {} : { status }),
  };
  const decoded = Schema.decodeUnknownExit(contentSchema(version))(input, { errors: "all" });
  if (decoded._tag === "Success")
    return Result.succeed({ ...rest, ...(decoded.value as object) } as unknown as TypedBody<V>);
  const error = decoded.cause.reasons.find((r) => r._tag === "Fail")?.error;
  if (!Schema.isSchemaError(error)) return Result.fail([{ path: "", message: String(error) }]);
  const issues = formatter(error.issue).issues;
  return Result.fail(issues.map((i) => ({ path: pathOf(i.path ?? []), message: i.message })));
};

const served = <B>(group: string, version: string, plural: string, v: VersionDefinition): Served<B> => ({
  [SERVED]: {
    group,
    version,
    plural,
    decode: (body) => decodeBody(v, body) as Result.Result<B, ReadonlyArray<FieldIssue>>,
  },
});

const invalid = (message: string) =>
  Result.fail(new ResourceError({ reason: "InvalidDefinition", path: "", message }));

/**
 * Checks a definition: at least one version, the storage version among them and served, and
 * with a conversion, one for every other version.
 *
 * @example
 * check({ group: "kopf.dev", kind: "K", plural: "ks", versions: { v1: { spec } }, storage: "v2" })
 * // Result.fail(ResourceError { reason: "InvalidDefinition", message: "the storage version v2 is not among the versions (v1)" })
 */
export const check = <V extends Versions, S extends keyof V & string>(
  definition: Definition<V, S>,
): Result.Result<Definition<V, S>, ResourceError> => {
  const names = Object.keys(definition.versions);
  const storage = definition.versions[definition.storage];
  if (names.length === 0) return invalid(`${definition.kind}: a resource needs at least one version`);
  if (storage === undefined)
    return invalid(
      `${definition.kind}: the storage version ${definition.storage} is not among the versions (${names.join(", ")})`,
    );
  if (storage.served === false)
    return invalid(`${definition.kind}: the storage version ${definition.storage} must be served`);
  const conversion = definition.conversion as Readonly<Record<string, unknown>> | undefined;
  const missing = names.filter((n) => n !== definition.storage && conversion?.[n] === undefined);
  if (conversion !== undefined && missing.length > 0)
    return invalid(
      `${definition.kind}: no conversion to and from ${definition.storage} for ${missing.join(", ")}`,
    );
  return Result.succeed(definition);
};

/**
 * Declares a custom resource once. Handlers registered on it get typed, decoded bodies; `kopf crd`
 * prints its CRD; its conversion is served as a webhook.
 *
 * @example
 * const KopfExample = define({
 *   group: "kopf.dev", kind: "KopfExample", plural: "kopfexamples", shortNames: ["kex"],
 *   versions: { v1: { spec: Schema.Struct({ size: Schema.Int }), status: Schema.Struct({}) } },
 *   storage: "v1",
 * })
 */
export const define = <const V extends Versions, const S extends keyof V & string>(
  definition: Definition<V, S>,
): Result.Result<CustomResource<V, S>, ResourceError> =>
  Result.map(check(definition), (d) => {
    const version = <K extends keyof V & string>(name: K): Served<TypedBody<V[K]>> => {
      const v = d.versions[name] as VersionDefinition;
      return served(d.group, name, d.plural, v);
    };
    return {
      ...version(d.storage),
      definition: d,
      version,
      contentSchema: (name) => contentSchema(d.versions[name] ?? { spec: Schema.Unknown }),
    };
  });
