/**
 * An Effect `Schema` as the structural OpenAPI v3 schema of a CRD version: the stored (encoded)
 * side of the schema, with its checks as OpenAPI validations and the Kubernetes markers of
 * `Markers`. What has no structural form (tuples, recursive schemas, unions other than literals,
 * `null` and int-or-string, checks without an OpenAPI equivalent) is an error naming the field,
 * never silently dropped: the server would then accept what the operator rejects.
 */
import * as Result from "effect/Result";
import type * as Schema from "effect/Schema";
import * as SchemaAST from "effect/SchemaAST";
import { ResourceError } from "./Errors.ts";
import { markersOf } from "./Markers.ts";

/** A JSONSchemaProps object, as a CRD's `openAPIV3Schema` holds it. */
export type JsonSchemaProps = { [key: string]: unknown };

type Errors = Array<ResourceError>;

const unsupported = (errors: Errors, path: string, message: string): JsonSchemaProps => {
  errors.push(new ResourceError({ reason: "Unsupported", path, message: `${path || "(root)"}: ${message}` }));
  return {};
};

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** The stored form of a node: through its encoding links, to the JSON side. */
const encodedOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => {
  const chain: Array<SchemaAST.AST> = [ast];
  let current = ast;
  while (current.encoding !== undefined) {
    const last = current.encoding[current.encoding.length - 1];
    if (last === undefined) break;
    current = last.to;
    chain.push(current);
  }
  return chain;
};

/** Whether a property may be absent from the stored object. */
const isOptionalKey = (ast: SchemaAST.AST): boolean =>
  encodedOf(ast).some((node) => node.context?.isOptional);

interface Payload {
  readonly [key: string]: unknown;
}

const representation = (check: SchemaAST.Filter<unknown>): { id: string; payload: Payload } | undefined => {
  const r = check.annotations?.representation as { id?: unknown; payload?: unknown } | undefined;
  return typeof r?.id === "string"
    ? { id: r.id, payload: typeof r.payload === "object" && r.payload !== null ? (r.payload as Payload) : {} }
    : undefined;
};

const flatChecks = (checks: SchemaAST.Checks | undefined): ReadonlyArray<SchemaAST.Filter<unknown>> =>
  (checks ?? []).flatMap((c) => (c._tag === "FilterGroup" ? flatChecks(c.checks) : [c]));

/** One check as OpenAPI fields, or `undefined` when it has no OpenAPI form. */
const checkFields = (check: SchemaAST.Filter<unknown>, type: unknown): JsonSchemaProps | undefined => {
  const r = representation(check);
  if (r === undefined) return undefined;
  const p = r.payload;
  const isArray = type === "array";
  const isObject = type === "object";
  switch (r.id) {
    case "effect/schema/isInt":
      return { type: "integer" };
    case "effect/schema/isFinite":
      return {};
    case "effect/schema/isBetween":
      return {
        minimum: p.minimum,
        maximum: p.maximum,
        ...(p.exclusiveMinimum === true ? { exclusiveMinimum: true } : {}),
        ...(p.exclusiveMaximum === true ? { exclusiveMaximum: true } : {}),
      };
    case "effect/schema/isGreaterThan":
      return { minimum: p.exclusiveMinimum, exclusiveMinimum: true };
    case "effect/schema/isGreaterThanOrEqualTo":
      return { minimum: p.minimum };
    case "effect/schema/isLessThan":
      return { maximum: p.exclusiveMaximum, exclusiveMaximum: true };
    case "effect/schema/isLessThanOrEqualTo":
      return { maximum: p.maximum };
    case "effect/schema/isMultipleOf":
      return { multipleOf: p.divisor };
    case "effect/schema/isPattern":
      return { pattern: patternOf(String(p.source)) };
    case "effect/schema/isMinLength":
      return isArray ? { minItems: p.minLength } : isObject ? undefined : { minLength: p.minLength };
    case "effect/schema/isMaxLength":
      return isArray ? { maxItems: p.maxLength } : isObject ? undefined : { maxLength: p.maxLength };
    case "effect/schema/isMinCodePoints":
      return { minLength: p.minCodePoints };
    case "effect/schema/isMaxCodePoints":
      return { maxLength: p.maxCodePoints };
    case "effect/schema/isMinProperties":
      return { minProperties: p.minProperties };
    case "effect/schema/isMaxProperties":
      return { maxProperties: p.maxProperties };
    case "effect/schema/isUnique":
      return isArray ? { "x-kubernetes-list-type": "set" } : undefined;
    default: {
      const patterns = (check.annotations?.arbitraryConstraint as { patterns?: unknown } | undefined)
        ?.patterns;
      const first =
        Array.isArray(patterns) && patterns.length === 1 ? (patterns[0] as { source?: unknown }) : {};
      return typeof first.source === "string" ? { pattern: patternOf(first.source) } : undefined;
    }
  }
};

/**
 * A regular expression's source as a CRD pattern: JavaScript's `source` escapes every `/` (it
 * could end a literal); the pattern has them as written, and every other escape as it is.
 */
const patternOf = (source: string): string => {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\" && source[i + 1] === "/") {
      out += "/";
      i++;
    } else if (c === "\\") {
      out += source.slice(i, i + 2);
      i++;
    } else out += c;
  }
  return out;
};

const literalType = (value: unknown): string | undefined =>
  typeof value === "string"
    ? "string"
    : typeof value === "boolean"
      ? "boolean"
      : typeof value === "number"
        ? Number.isInteger(value)
          ? "integer"
          : "number"
        : undefined;

const enumOf = (values: ReadonlyArray<unknown>, errors: Errors, path: string): JsonSchemaProps => {
  const types = new Set(values.map(literalType));
  if (types.has(undefined))
    return unsupported(errors, path, "only string, number and boolean literals have an OpenAPI form");
  const type = types.has("number") || (types.has("integer") && types.size > 1) ? "number" : [...types][0];
  if (types.size > 1 && !(types.size === 2 && types.has("integer") && types.has("number")))
    return unsupported(errors, path, "a union of literals of different types has no structural form");
  return { type, enum: [...values] };
};

const unionOf = (ast: SchemaAST.Union, errors: Errors, path: string): JsonSchemaProps => {
  const members = ast.types.filter((t) => !SchemaAST.isUndefined(t));
  const nullable = members.some(SchemaAST.isNull);
  const rest = members.filter((t) => !SchemaAST.isNull(t));
  const literals = rest.flatMap((t) => (SchemaAST.isLiteral(t) ? [t.literal] : []));
  let out: JsonSchemaProps;
  if (rest.length === 0) out = {};
  else if (literals.length === rest.length) out = enumOf(literals, errors, path);
  else if (rest.length === 1 && rest[0] !== undefined) out = node(rest[0], errors, path);
  else
    return unsupported(
      errors,
      path,
      "a union other than literals, null and IntOrString has no structural form",
    );
  return nullable ? { ...out, nullable: true } : out;
};

const objectsOf = (
  ast: SchemaAST.Objects,
  errors: Errors,
  path: string,
  preserves: boolean,
): JsonSchemaProps => {
  const properties: Record<string, JsonSchemaProps> = {};
  const required: Array<string> = [];
  for (const ps of ast.propertySignatures) {
    if (typeof ps.name !== "string") {
      unsupported(errors, path, "only string keys have an OpenAPI form");
      continue;
    }
    properties[ps.name] = node(ps.type, errors, join(path, ps.name));
    const defaulted = markersOf(ps.type).default !== undefined;
    if (!isOptionalKey(ps.type) && !defaulted) required.push(ps.name);
  }
  const out: JsonSchemaProps = { type: "object" };
  if (ast.propertySignatures.length > 0) out.properties = properties;
  if (required.length > 0) out.required = required;
  const [index, ...more] = ast.indexSignatures;
  if (index !== undefined) {
    if (more.length > 0 || !SchemaAST.isString(encodedOf(index.parameter).at(-1) ?? index.parameter))
      return unsupported(
        errors,
        path,
        "only one index signature with string keys (a Record) has an OpenAPI form",
      );
    const value = encodedOf(index.type).at(-1) ?? index.type;
    if (preserves && SchemaAST.isUnknown(value)) return out;
    if (ast.propertySignatures.length > 0)
      return unsupported(errors, path, "properties and additionalProperties together are not structural");
    out.additionalProperties = node(index.type, errors, `${path}[*]`);
  }
  return out;
};

const shapeOf = (ast: SchemaAST.AST, errors: Errors, path: string, preserves: boolean): JsonSchemaProps => {
  switch (ast._tag) {
    case "String":
      return { type: "string" };
    case "Number":
      return { type: "number" };
    case "Boolean":
      return { type: "boolean" };
    case "Literal":
      return enumOf([ast.literal], errors, path);
    case "Enum":
      return enumOf(
        ast.enums.map(([, v]) => v),
        errors,
        path,
      );
    case "Unknown":
    case "Any":
      return preserves ? {} : { "x-kubernetes-preserve-unknown-fields": true };
    case "Union":
      return unionOf(ast, errors, path);
    case "Objects":
      return objectsOf(ast, errors, path, preserves);
    case "Arrays": {
      const [item, ...more] = ast.rest;
      if (ast.elements.length > 0 || item === undefined || more.length > 0)
        return unsupported(errors, path, "tuples have no structural form; use Schema.Array");
      return { type: "array", items: node(item, errors, `${path}[]`) };
    }
    case "Suspend":
      return unsupported(errors, path, "recursive schemas are not structural");
    default:
      return unsupported(
        errors,
        path,
        `a ${ast._tag} schema has no OpenAPI form; give it a stored (encoded) form`,
      );
  }
};

const CONTAINERS: ReadonlySet<string> = new Set(["Objects", "Arrays", "Union"]);

const node = (ast: SchemaAST.AST, errors: Errors, path: string): JsonSchemaProps => {
  const chain = encodedOf(ast);
  // A struct, array or union keeps its children (with their own markers and encodings) on the
  // decoded side; the encoded side of a default or optional key flips them and loses markers.
  const stored = chain.find((n) => CONTAINERS.has(n._tag)) ?? chain[chain.length - 1] ?? ast;
  const markers: Record<string, unknown> = Object.assign({}, ...chain.map(markersOf).reverse());
  const preserves = markers["x-kubernetes-preserve-unknown-fields"] === true;
  const intOrString = markers["x-kubernetes-int-or-string"] === true;
  let out: JsonSchemaProps = intOrString ? {} : shapeOf(stored, errors, path, preserves);
  for (const check of intOrString ? [] : flatChecks(stored.checks)) {
    const fields = checkFields(check, out.type);
    if (fields === undefined) {
      const expected = check.annotations?.expected ?? check.annotations?.description ?? "a custom check";
      unsupported(
        errors,
        path,
        `the check "${String(expected)}" has no OpenAPI form; express it as a CEL rule`,
      );
    } else out = { ...out, ...fields };
  }
  const description = chain
    .flatMap((n) => [n.annotations, ...(n.checks ?? []).map((c) => c.annotations)])
    .map((a) => a?.description)
    .find((d) => typeof d === "string");
  return { ...(description === undefined ? {} : { description }), ...out, ...markers };
};

/**
 * The structural OpenAPI v3 schema of a Schema's stored form, or the first thing in it that has
 * no such form (named by its field path).
 *
 * @example
 * toOpenApi(Schema.Struct({ size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 9 })) }))
 * // Result.succeed({ type: "object", properties: { size: { type: "integer", minimum: 1, maximum: 9 } }, required: ["size"] })
 */
export const toOpenApi = (schema: Schema.Top, path = ""): Result.Result<JsonSchemaProps, ResourceError> => {
  const errors: Errors = [];
  const out = node(schema.ast, errors, path);
  const [first] = errors;
  return first === undefined ? Result.succeed(out) : Result.fail(first);
};
