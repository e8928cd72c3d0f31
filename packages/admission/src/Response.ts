/**
 * AdmissionReview responses (Kopf's `build_response`, docs/behaviour/admission.md#requests): the envelope and the
 * request uid echoed, `allowed` when no handler failed, the warnings, the patch as base64 JSON
 * patch ops, and the status of the single reported error chosen by Kopf's priority. Pure.
 */
import { AdmissionError, Errors, PermanentError, TemporaryError } from "@kopf/registry";
import type { JsonPatch } from "@kopf/structs";
import { Base64 } from "effect/encoding";

/** The `response` of an AdmissionReview. */
export interface ResponseBody {
  readonly uid: string;
  readonly allowed: boolean;
  readonly warnings?: ReadonlyArray<string>;
  readonly patchType?: "JSONPatch";
  /** base64 of the JSON-encoded JSON-patch operations. */
  readonly patch?: string;
  readonly status?: { readonly message: string; readonly code: number };
}

/** The AdmissionReview document answered to the API server. */
export interface ResponseDocument {
  readonly apiVersion: string;
  readonly kind: string;
  readonly response: ResponseBody;
}

/** What a response is made of. */
export interface ResponseInput {
  /** The request's envelope (defaults `admission.k8s.io/v1`, `AdmissionReview`). */
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly uid: string;
  /** The handlers' failures, in the order of the handlers. */
  readonly errors?: ReadonlyArray<unknown>;
  readonly warnings?: ReadonlyArray<unknown>;
  /** The JSON-patch operations of the handlers' `patch` against the request's body. */
  readonly patch?: JsonPatch.JsonPatch;
}

/**
 * The rank of an error for reporting: the lowest wins (Kopf: AdmissionError, then other
 * permanent errors, then temporary errors, then anything else).
 *
 * @example
 * Response.rank(new AdmissionError("No!")) // 0
 * Response.rank(new Error("boom")) // 3
 */
export const rank = (error: unknown): number =>
  error instanceof AdmissionError
    ? 0
    : error instanceof PermanentError
      ? 1
      : error instanceof TemporaryError
        ? 2
        : 3;

/**
 * The single error reported to the API server: the highest-priority one, the first among equals.
 *
 * @example
 * Response.reported([new Error("a"), new AdmissionError("b")]) // the AdmissionError
 */
export const reported = (errors: ReadonlyArray<unknown>): unknown => {
  let best: { error: unknown; rank: number } | undefined;
  for (const error of errors) {
    const r = rank(error);
    if (best === undefined || r < best.rank) best = { error, rank: r };
  }
  return best?.error;
};

/**
 * The text of an error as Python's `str(error) or repr(error)`: the message when there is
 * one, else the error's name with empty parentheses.
 *
 * @example
 * Response.messageOf(new AdmissionError("No!")) // "No!"
 * Response.messageOf(new AdmissionError()) // "AdmissionError()"
 */
export const messageOf = (error: unknown): string => {
  if (error instanceof Error) return error.message !== "" ? error.message : `${error.name}()`;
  if (typeof error === "object" && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") return message;
  }
  const text = String(error);
  return text === "" ? "Error()" : text;
};

/**
 * The HTTP code of the reported error: an `AdmissionError`'s own code (unless 0), else 500.
 *
 * @example
 * Response.codeOf(new AdmissionError("No!", { code: 403 })) // 403
 */
export const codeOf = (error: unknown): number =>
  (error instanceof AdmissionError ? error.code : 0) || Errors.DEFAULT_ADMISSION_CODE;

/**
 * Builds the AdmissionReview response document.
 *
 * @example
 * ```ts
 * Response.build({ uid: "u1", errors: [new AdmissionError("No!", { code: 400 })] })
 * // { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
 * //   response: { uid: "u1", allowed: false, status: { message: "No!", code: 400 } } }
 * ```
 */
export const build = (input: ResponseInput): ResponseDocument => {
  const errors = input.errors ?? [];
  const warnings = (input.warnings ?? []).map((w) => (typeof w === "string" ? w : String(w)));
  const patch = input.patch ?? [];
  const error = reported(errors);
  const response: ResponseBody = {
    uid: input.uid,
    allowed: errors.length === 0,
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(patch.length > 0
      ? { patchType: "JSONPatch" as const, patch: Base64.encode(JSON.stringify(patch)) }
      : {}),
    ...(errors.length > 0 ? { status: { message: messageOf(error), code: codeOf(error) } } : {}),
  };
  return {
    apiVersion: input.apiVersion ?? "admission.k8s.io/v1",
    kind: input.kind ?? "AdmissionReview",
    response,
  };
};
