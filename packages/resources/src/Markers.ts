/**
 * Kubernetes-specific schema markers: what a custom resource's OpenAPI schema can say that an
 * Effect `Schema` alone does not (defaults, int-or-string, preserved unknown fields, list and map
 * types, CEL rules, formats). Each marker is a plain annotation under one key, read by the OpenAPI
 * generation; those that change what a value decodes to (defaults, int-or-string, preserved
 * fields) also change the Schema itself, so the operator decodes as the API server validates.
 */
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import type * as SchemaAST from "effect/SchemaAST";

/** The annotation key under which the OpenAPI generation finds the markers of a schema node. */
export const OPENAPI_KEY = "kopf/openapi";

/** A CEL validation rule (`x-kubernetes-validations`), checked by the API server only. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?:
    | "FieldValueInvalid"
    | "FieldValueForbidden"
    | "FieldValueRequired"
    | "FieldValueDuplicate";
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/** OpenAPI fields a marker adds to a node of the generated schema. */
export interface OpenApiFields {
  readonly default?: unknown;
  readonly format?: string;
  readonly "x-kubernetes-int-or-string"?: true;
  readonly "x-kubernetes-preserve-unknown-fields"?: true;
  readonly "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  readonly "x-kubernetes-list-map-keys"?: ReadonlyArray<string>;
  readonly "x-kubernetes-map-type"?: "granular" | "atomic";
  readonly "x-kubernetes-embedded-resource"?: true;
  readonly "x-kubernetes-validations"?: ReadonlyArray<ValidationRule>;
}

const fromAnnotations = (annotations: Readonly<Record<string, unknown>> | undefined): OpenApiFields => {
  const value = annotations?.[OPENAPI_KEY];
  return typeof value === "object" && value !== null ? (value as OpenApiFields) : {};
};

/**
 * The markers attached to a schema node, or `{}`. Annotating a schema with checks annotates its
 * last check, so the checks' annotations count as the node's.
 *
 * @example
 * markersOf(Schema.Int.pipe(withDefault(1)).ast) // { default: 1 }
 */
export const markersOf = (ast: SchemaAST.AST): OpenApiFields =>
  Object.assign(
    {},
    fromAnnotations(ast.annotations),
    ...(ast.checks ?? []).map((check) => fromAnnotations(check.annotations)),
  );

/**
 * Adds OpenAPI fields to a schema node (merged with the ones already there).
 *
 * @example
 * const Phase = Schema.String.pipe(openApi({ "x-kubernetes-map-type": "atomic" }))
 */
export const openApi =
  (fields: OpenApiFields) =>
  <S extends Schema.Top>(schema: S): S["Rebuild"] =>
    schema.annotate({
      [OPENAPI_KEY]: { ...markersOf(schema.ast), ...fields },
    });

/**
 * A struct field with a default: optional in the stored object, the default filled in by the API
 * server (`default`) and by decoding alike. The value is in the stored (encoded) form.
 *
 * @example
 * const Spec = Schema.Struct({ replicas: Schema.Int.pipe(withDefault(1)) })
 * Schema.decodeUnknownSync(Spec)({}) // { replicas: 1 }
 */
export const withDefault =
  <S extends Schema.Top>(value: S["Encoded"]) =>
  (schema: S) =>
    schema
      .pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
      .annotate({ [OPENAPI_KEY]: { ...markersOf(schema.ast), default: value } });

/**
 * Kubernetes' int-or-string (`x-kubernetes-int-or-string`): an integer or a string, such as a
 * port number or name, or a count or a percentage.
 *
 * @example
 * const Spec = Schema.Struct({ maxUnavailable: IntOrString })
 */
export const IntOrString = Schema.Union([Schema.Int, Schema.String]).annotate({
  [OPENAPI_KEY]: { "x-kubernetes-int-or-string": true },
});

/**
 * A struct that also keeps fields it does not declare (`x-kubernetes-preserve-unknown-fields`):
 * the API server stores them and decoding keeps them, instead of both pruning them.
 *
 * @example
 * const Extra = preserveUnknownFields({ name: Schema.String })
 * Schema.decodeUnknownSync(Extra)({ name: "a", other: 1 }) // { name: "a", other: 1 }
 */
export const preserveUnknownFields = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Schema.Record(Schema.String, Schema.Unknown)]).annotate({
    [OPENAPI_KEY]: { "x-kubernetes-preserve-unknown-fields": true },
  });

/**
 * Any JSON value, stored as it is (`x-kubernetes-preserve-unknown-fields` without a type).
 *
 * @example
 * const Spec = Schema.Struct({ values: AnyJson })
 */
export const AnyJson = Schema.Unknown.annotate({
  [OPENAPI_KEY]: { "x-kubernetes-preserve-unknown-fields": true },
});

/**
 * How server-side apply merges a list (`x-kubernetes-list-type`, with the keys of a `map` list).
 * A `set` list must hold unique scalars and a `map` list unique keys: the API server rejects
 * duplicates, so give such arrays `Schema.isUnique()` (a `set`) to decode alike.
 *
 * @example
 * const Ports = Schema.Array(Port).pipe(listType("map", ["name"]))
 */
export const listType = (type: "atomic" | "set" | "map", mapKeys?: ReadonlyArray<string>) =>
  openApi(
    type === "map" && mapKeys !== undefined
      ? { "x-kubernetes-list-type": type, "x-kubernetes-list-map-keys": mapKeys }
      : { "x-kubernetes-list-type": type },
  );

/**
 * How server-side apply merges a map or struct (`x-kubernetes-map-type`).
 *
 * @example
 * const Selector = Schema.Record(Schema.String, Schema.String).pipe(mapType("atomic"))
 */
export const mapType = (type: "granular" | "atomic") => openApi({ "x-kubernetes-map-type": type });

/**
 * CEL rules the API server checks (`x-kubernetes-validations`). Decoding does not evaluate CEL:
 * a body the server accepted passes them.
 *
 * @example
 * const Range = Schema.Struct({ min: Schema.Int, max: Schema.Int })
 *   .pipe(validations([{ rule: "self.min <= self.max", message: "min must not exceed max" }]))
 */
export const validations = (rules: ReadonlyArray<ValidationRule>) =>
  openApi({ "x-kubernetes-validations": rules });

/**
 * A string format the API server knows (`format`: `date-time`, `uuid`, `email`, `byte`, …). The
 * server validates the well-known ones; add a matching check to the Schema to decode alike.
 *
 * @example
 * const Created = Schema.String.pipe(format("date-time"))
 */
export const format = (name: string) => openApi({ format: name });
