/**
 * The query options of writes (`dryRun`, `fieldValidation`), validated as kube-apiserver decodes
 * them into CreateOptions, UpdateOptions, PatchOptions or DeleteOptions: a bad value is a 422
 * naming the options kind, before anything else about the request is looked at; and the options
 * object admission webhooks are shown.
 */
import * as FieldError from "./FieldError.ts";
import * as Status from "./Status.ts";

const OPTIONS_KIND: Readonly<Record<string, string>> = {
  POST: "CreateOptions",
  PUT: "UpdateOptions",
  PATCH: "PatchOptions",
  DELETE: "DeleteOptions",
};

const FIELD_VALIDATIONS = ["", "Ignore", "Strict", "Warn"];

/**
 * The 422 for a write's invalid options, or undefined when they are fine (or the method is no write).
 *
 * @example
 * check("POST", new URLSearchParams("dryRun=Some"))?.status.message
 * // 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"'
 */
export const check = (method: string, query: URLSearchParams): Status.ApiError | undefined => {
  if (!query.has("dryRun") && !query.has("fieldValidation")) return undefined;
  const kind = OPTIONS_KIND[method.toUpperCase()];
  if (kind === undefined) return undefined;
  const errors: Array<FieldError.FieldError> = [];
  const dryRun = query.getAll("dryRun");
  if (dryRun.some((v) => v !== "All")) errors.push(FieldError.notSupported("dryRun", dryRun, ["All"]));
  const validation = query.get("fieldValidation");
  if (
    kind !== "DeleteOptions" &&
    validation !== null &&
    !FIELD_VALIDATIONS.some((v) => v.toLowerCase() === validation.toLowerCase())
  )
    errors.push(FieldError.notSupported("fieldValidation", validation, FIELD_VALIDATIONS));
  return errors.length === 0 ? undefined : Status.invalid("meta.k8s.io", kind, "", errors);
};

/**
 * The options object admission webhooks get in `request.options` for a write, as kube-apiserver
 * decodes it from the query: `dryRun`, `fieldManager` and `fieldValidation` as given (left out
 * when not given). A patch is admitted with the options of the create or update it becomes, and
 * `force` (apply only) is not among them.
 *
 * @example
 * admissionOptions("UpdateOptions", new URLSearchParams("dryRun=All&fieldManager=me"))
 * // { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"], fieldManager: "me" }
 */
export const admissionOptions = (
  kind: "CreateOptions" | "UpdateOptions",
  query: URLSearchParams,
): Readonly<Record<string, unknown>> => {
  const dryRun = query.getAll("dryRun");
  const fieldManager = query.get("fieldManager") ?? "";
  const fieldValidation = query.get("fieldValidation") ?? "";
  return {
    kind,
    apiVersion: "meta.k8s.io/v1",
    ...(dryRun.length === 0 ? {} : { dryRun }),
    ...(fieldManager === "" ? {} : { fieldManager }),
    ...(fieldValidation === "" ? {} : { fieldValidation }),
  };
};
