/**
 * Request bodies: size limits (3 MiB per request, as the apiserver's `MaxRequestBodyBytes`),
 * media types, and decoding JSON or YAML into a value, with 400/413/415 answers for bad input.
 */
import * as Result from "effect/Result";
import * as YAML from "yaml";
import { goJsonError } from "./internal/GoJson.ts";
import { decodeText } from "./internal/Json.ts";
import * as Protobuf from "./Protobuf.ts";
import * as Status from "./Status.ts";

export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** etcd's default request limit: stored objects above it fail. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

export const WRITE_MEDIA_TYPES = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
];

export type PatchType = "json" | "merge" | "strategic" | "apply";

const PATCH_TYPES: ReadonlyArray<readonly [string, PatchType]> = [
  ["application/json-patch+json", "json"],
  ["application/merge-patch+json", "merge"],
  ["application/strategic-merge-patch+json", "strategic"],
  ["application/apply-patch+yaml", "apply"],
  ["application/apply-patch+cbor", "apply"],
];

export const patchMediaTypes = (strategic: boolean): Array<string> =>
  PATCH_TYPES.filter(([m, t]) => (strategic || t !== "strategic") && !m.endsWith("cbor")).map(([m]) => m);

/** The media type of a request without parameters (`application/json`). */
export const mediaType = (headers: Readonly<Record<string, string>>): string =>
  (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

export const patchTypeOf = (media: string): PatchType | undefined =>
  PATCH_TYPES.find(([m]) => m === media)?.[1];

export const checkSize = (body: Uint8Array | undefined): Result.Result<void, Status.ApiError> =>
  body !== undefined && body.byteLength > MAX_REQUEST_BYTES
    ? Result.fail(Status.requestEntityTooLarge(`limit is ${MAX_REQUEST_BYTES}`))
    : Result.succeed(undefined);

const parseJson = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(JSON.parse(text));
  } catch (e) {
    return Result.fail(goJsonError(text) ?? (e instanceof Error ? e.message : String(e)));
  }
};

/** The first 30 bytes of a body, as the apiserver quotes it in decode errors. */
export const summarize = (body: Uint8Array | undefined): string => {
  const bytes = body ?? new Uint8Array();
  const text = new TextDecoder().decode(bytes.subarray(0, 30));
  return bytes.byteLength > 30 ? `${text} ...` : text;
};

/** A decode failure of an object body, as transformDecodeError words it. */
export const unrecognized = (kind: string, why: string, body: Uint8Array | undefined): Status.ApiError =>
  Status.badRequest(
    `the object provided is unrecognized (must be of type ${kind}): ${why} (${summarize(body)})`,
  );

const parseYaml = (text: string): Result.Result<unknown, string> => {
  try {
    const docs = YAML.parseAllDocuments(text, { uniqueKeys: false, version: "1.1" });
    if (!Array.isArray(docs)) return Result.succeed(null);
    const real = docs.filter((d) => d.contents !== null);
    const first = real[0];
    if (first === undefined) return Result.succeed(null);
    if (real.length > 1) return Result.fail("yaml: multiple documents are not allowed in one request");
    if (first.errors.length > 0)
      return Result.fail(`yaml: ${first.errors[0]?.message ?? "invalid document"}`);
    return Result.succeed(first.toJS({ maxAliasCount: 100 }));
  } catch (e) {
    return Result.fail(`yaml: ${e instanceof Error ? e.message : String(e)}`);
  }
};

/**
 * Decodes a body as JSON, or YAML when `yaml` is set. An empty or non-UTF-8 body is a 400.
 *
 * @example
 * decode(new TextEncoder().encode('{"a":1}'), false) // Result.succeed({ a: 1 })
 */
export const decode = (
  body: Uint8Array | undefined,
  yaml: boolean,
): Result.Result<unknown, Status.ApiError> => {
  if (body === undefined || body.byteLength === 0)
    return Result.fail(Status.badRequest("the request body is empty"));
  const text = decodeText(body);
  if (text === undefined) return Result.fail(Status.badRequest("the request body is not valid UTF-8"));
  const r = yaml ? parseYaml(text) : parseJson(text);
  return Result.isFailure(r)
    ? Result.fail(
        Status.badRequest(
          yaml
            ? `error converting YAML to JSON: ${r.failure}`
            : `couldn't get version/kind; json parse error: ${r.failure}`,
        ),
      )
    : Result.succeed(r.success);
};

/**
 * Decodes a create/update body: JSON, YAML for `application/yaml`, Kubernetes protobuf for
 * built-in types (`protobuf`); other media types are 415.
 */
export const decodeObjectBody = (
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | undefined,
  kind: string,
  protobuf = true,
): Result.Result<unknown, Status.ApiError> => {
  const media = mediaType(headers);
  if (media === "" || media === "application/json" || media === "*/*") {
    const text = body === undefined ? "" : decodeText(body);
    if (text === undefined) return Result.fail(Status.badRequest("the request body is not valid UTF-8"));
    const r = parseJson(text);
    return Result.isFailure(r)
      ? Result.fail(unrecognized(kind, `couldn't get version/kind; json parse error: ${r.failure}`, body))
      : Result.succeed(r.success);
  }
  if (media === "application/yaml" || media === "application/x-yaml" || media === "text/yaml")
    return decode(body, true);
  if (media === Protobuf.PROTOBUF_MEDIA && protobuf) {
    if (body === undefined || body.byteLength === 0)
      return Result.fail(Status.badRequest("the request body is empty"));
    const r = Protobuf.decode(body);
    return Result.isFailure(r)
      ? Result.fail(Status.badRequest(`unable to decode protobuf body: ${r.failure}`))
      : Result.succeed(r.success);
  }
  const accepted = protobuf
    ? WRITE_MEDIA_TYPES
    : WRITE_MEDIA_TYPES.filter((m) => m !== Protobuf.PROTOBUF_MEDIA);
  return Result.fail(
    protobuf ? Status.routeUnsupportedMediaType() : Status.unsupportedMediaType(media, accepted),
  );
};
