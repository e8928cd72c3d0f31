/**
 * The reverse direction: an existing CRD (someone else's, or one written by hand) as a TypeScript
 * module declaring its Schemas and the resource (`kopf.resource`), so handlers of third-party
 * resources get typed, decoded bodies too. Every OpenAPI field the Schemas cannot check is kept
 * as a marker, so the module's `kopf crd` gives the same schema back.
 */
import * as Result from "effect/Result";
import { ResourceError } from "./Errors.ts";

type Json = { readonly [key: string]: unknown };

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));
/** A JSON value as a JavaScript literal (identifier keys unquoted, as a formatter leaves them). */
const lit = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(lit).join(", ")}]`
    : isObject(v)
      ? Object.keys(v).length === 0
        ? "{}"
        : `{ ${Object.entries(v)
            .map(([k, x]) => `${key(k)}: ${lit(x)}`)
            .join(", ")} }`
      : JSON.stringify(v);

const checksOf = (s: Json): Array<string> => {
  const out: Array<string> = [];
  const num = (name: string) => (typeof s[name] === "number" ? (s[name] as number) : undefined);
  const [min, max] = [num("minimum"), num("maximum")];
  if (min !== undefined)
    out.push(
      s.exclusiveMinimum === true ? `Schema.isGreaterThan(${min})` : `Schema.isGreaterThanOrEqualTo(${min})`,
    );
  if (max !== undefined)
    out.push(
      s.exclusiveMaximum === true ? `Schema.isLessThan(${max})` : `Schema.isLessThanOrEqualTo(${max})`,
    );
  if (num("multipleOf") !== undefined) out.push(`Schema.isMultipleOf(${num("multipleOf")})`);
  for (const [field, fn] of [
    // The API server counts a string's length in code points, as these checks do.
    ["minLength", "isMinCodePoints"],
    ["maxLength", "isMaxCodePoints"],
    ["minItems", "isMinLength"],
    ["maxItems", "isMaxLength"],
    ["minProperties", "isMinProperties"],
    ["maxProperties", "isMaxProperties"],
  ] as const)
    if (num(field) !== undefined) out.push(`Schema.${fn}(${num(field)})`);
  if (typeof s.pattern === "string") out.push(`Schema.isPattern(new RegExp(${lit(s.pattern)}))`);
  if (s["x-kubernetes-list-type"] === "set") out.push("Schema.isUnique()");
  return out;
};

const MARKERS = [
  "format",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-validations",
] as const;

const shape = (s: Json, path: string, errors: Array<ResourceError>): string => {
  if (s["x-kubernetes-int-or-string"] === true) return "kopf.Resources.IntOrString";
  const preserves = s["x-kubernetes-preserve-unknown-fields"] === true;
  if (Array.isArray(s.enum)) return `Schema.Literals(${lit(s.enum)})`;
  switch (s.type) {
    case "string":
      return "Schema.String";
    case "integer":
      return "Schema.Int";
    case "number":
      return "Schema.Number";
    case "boolean":
      return "Schema.Boolean";
    case "array":
      return `Schema.Array(${schemaOf(isObject(s.items) ? s.items : {}, `${path}[]`, errors)})`;
    case "object": {
      const props = isObject(s.properties) ? s.properties : undefined;
      if (props === undefined && isObject(s.additionalProperties))
        return `Schema.Record(Schema.String, ${schemaOf(s.additionalProperties, `${path}[*]`, errors)})`;
      if (props === undefined)
        return preserves ? "kopf.Resources.preserveUnknownFields({})" : "Schema.Struct({})";
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      const fields = Object.entries(props).map(([k, v]) => {
        const child = schemaOf(isObject(v) ? v : {}, path === "" ? k : `${path}.${k}`, errors);
        const optional = !required.has(k) && !(isObject(v) && v.default !== undefined);
        return `${key(k)}: ${optional ? `Schema.optionalKey(${child})` : child}`;
      });
      return `${preserves ? "kopf.Resources.preserveUnknownFields" : "Schema.Struct"}({ ${fields.join(", ")} })`;
    }
    case undefined:
      if (preserves) return "kopf.Resources.AnyJson";
      errors.push(
        new ResourceError({
          reason: "InvalidCrd",
          path,
          message: `${path}: a schema without a type is not structural`,
        }),
      );
      return "Schema.Unknown";
    default:
      errors.push(
        new ResourceError({ reason: "InvalidCrd", path, message: `${path}: unknown type ${lit(s.type)}` }),
      );
      return "Schema.Unknown";
  }
};

const schemaOf = (s: Json, path: string, errors: Array<ResourceError>): string => {
  let out = shape(s, path, errors);
  const checks = s["x-kubernetes-int-or-string"] === true ? [] : checksOf(s);
  if (checks.length > 0) out = `${out}.check(${checks.join(", ")})`;
  if (s.nullable === true) out = `Schema.NullOr(${out})`;
  const markers = Object.fromEntries(MARKERS.filter((m) => s[m] !== undefined).map((m) => [m, s[m]]));
  if (Object.keys(markers).length > 0) out = `${out}.pipe(kopf.Resources.openApi(${lit(markers)}))`;
  if (typeof s.description === "string") out = `${out}.annotate({ description: ${lit(s.description)} })`;
  if (s.default !== undefined) out = `${out}.pipe(kopf.Resources.withDefault(${lit(s.default)}))`;
  return out;
};

const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

/**
 * A TypeScript module declaring a CRD's Schemas and the resource, or why the CRD cannot be read.
 *
 * @example
 * fromCrd(crd)
 * // Result.succeed('import * as Schema from "effect/Schema";\nimport * as kopf from "kopf";\n\nexport const KopfExampleV1Spec = …')
 */
export const fromCrd = (crd: unknown): Result.Result<string, ResourceError> => {
  const bad = (message: string) =>
    Result.fail(new ResourceError({ reason: "InvalidCrd", path: "", message }));
  if (!isObject(crd) || crd.kind !== "CustomResourceDefinition" || !isObject(crd.spec))
    return bad("not a CustomResourceDefinition");
  const spec = crd.spec;
  const names = isObject(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  if (typeof spec.group !== "string" || typeof names.kind !== "string" || typeof names.plural !== "string")
    return bad("the CRD lacks spec.group, spec.names.kind or spec.names.plural");
  const storage = versions.find((v) => v.storage === true) ?? versions[0];
  if (storage === undefined || typeof storage.name !== "string") return bad("the CRD has no versions");
  const errors: Array<ResourceError> = [];
  const kind = names.kind;
  const lines: Array<string> = [];
  const entries: Array<string> = [];
  for (const v of versions) {
    const name = String(v.name);
    const root = isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : {};
    const props = isObject(root.properties) ? root.properties : {};
    const id = `${kind}${pascal(name)}`;
    const spec = isObject(props.spec)
      ? schemaOf(props.spec, `${name}.spec`, errors)
      : "kopf.Resources.AnyJson";
    lines.push(`export const ${id}Spec = ${spec};`, `export type ${id}Spec = typeof ${id}Spec.Type;`);
    const parts = [`spec: ${id}Spec`];
    const statusSubresource = isObject(v.subresources) && v.subresources.status !== undefined;
    if (isObject(props.status) || statusSubresource) {
      const status = isObject(props.status)
        ? schemaOf(props.status, `${name}.status`, errors)
        : "kopf.Resources.AnyJson";
      lines.push(
        `export const ${id}Status = ${status};`,
        `export type ${id}Status = typeof ${id}Status.Type;`,
      );
      parts.push(`status: ${id}Status`);
    }
    if (v.served === false) parts.push("served: false");
    if (v.deprecated === true)
      parts.push(
        `deprecated: ${typeof v.deprecationWarning === "string" ? lit(v.deprecationWarning) : "true"}`,
      );
    if (Array.isArray(v.additionalPrinterColumns))
      parts.push(`printerColumns: ${lit(v.additionalPrinterColumns)}`);
    const scale = isObject(v.subresources) ? v.subresources.scale : undefined;
    if (isObject(scale)) parts.push(`scale: ${lit(scale)}`);
    lines.push("");
    entries.push(`    ${key(name)}: { ${parts.join(", ")} },`);
  }
  const [first] = errors;
  if (first !== undefined) return Result.fail(first);
  const optional = (field: string, value: unknown) =>
    value === undefined ? [] : [`  ${field}: ${lit(value)},`];
  lines.push(
    `export const ${kind} = kopf.resource({`,
    `  group: ${lit(spec.group)},`,
    `  kind: ${lit(kind)},`,
    `  plural: ${lit(names.plural)},`,
    ...optional("singular", names.singular),
    ...optional("scope", spec.scope),
    ...optional("shortNames", names.shortNames),
    ...optional("categories", names.categories),
    "  versions: {",
    ...entries,
    "  },",
    `  storage: ${lit(storage.name)},`,
    "});",
    "",
  );
  // The generated module's imports (text, not imports of this package); Schema only when used.
  const body = lines.join("\n");
  const imports = [
    ...(body.includes("Schema.") ? [`import { Schema } from ${lit("effect")};`] : []),
    `import * as kopf from ${lit("kopf")};`,
    "",
  ];
  return Result.succeed([...imports, body].join("\n"));
};
