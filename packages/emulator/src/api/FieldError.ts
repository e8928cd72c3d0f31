/**
 * Field errors as the apiserver's validation reports them (k8s.io/apimachinery field.Error): a
 * type, a field path and a detail, rendered as `path: Invalid value: "x": detail`.
 */

export type FieldErrorType =
  | "FieldValueInvalid"
  | "FieldValueRequired"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueDuplicate"
  | "FieldValueTypeInvalid"
  | "FieldValueNotFound";

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly value?: unknown;
  /** The value as Go prints it, when `value` cannot say it (e.g. `0x0`). */
  readonly rendered?: string;
  readonly detail: string;
}

/** Renders a bad value as field.Error does: `%q` for strings, `%v` for scalars, JSON otherwise. */
export const renderValue = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(sortKeys(value));
};

/** Go's encoding/json writes map keys sorted. */
const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
  return out;
};

/** The error body without the field path, e.g. `Invalid value: "X": must be lower case`. */
export const errorBody = (error: FieldError): string => {
  const detail = (s: string) => (error.detail === "" ? s : `${s}: ${error.detail}`);
  const value = error.rendered ?? renderValue(error.value);
  switch (error.type) {
    case "FieldValueRequired":
      return detail("Required value");
    case "FieldValueForbidden":
      return detail("Forbidden");
    case "FieldValueTooLong":
      return detail("Too long");
    case "FieldValueTooMany":
      return detail(error.value === undefined ? "Too many" : `Too many: ${value}`);
    case "FieldValueDuplicate":
      return `Duplicate value: ${value}`;
    case "FieldValueNotFound":
      return detail(`Not found: ${value}`);
    case "FieldValueNotSupported":
      return detail(`Unsupported value: ${value}`);
    case "FieldValueInvalid":
    case "FieldValueTypeInvalid":
      return detail(`Invalid value: ${value}`);
  }
};

export const render = (error: FieldError): string => `${error.field}: ${errorBody(error)}`;

export const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: "FieldValueInvalid",
  field,
  value,
  detail,
});
export const required = (field: string, detail = ""): FieldError => ({
  type: "FieldValueRequired",
  field,
  detail,
});
export const forbidden = (field: string, detail: string): FieldError => ({
  type: "FieldValueForbidden",
  field,
  detail,
});
export const tooLong = (field: string, detail: string): FieldError => ({
  type: "FieldValueTooLong",
  field,
  detail,
});
export const notSupported = (
  field: string,
  value: unknown,
  supported: ReadonlyArray<string>,
): FieldError => ({
  type: "FieldValueNotSupported",
  field,
  value,
  detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
});
export const typeInvalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: "FieldValueTypeInvalid",
  field,
  value,
  detail,
});
