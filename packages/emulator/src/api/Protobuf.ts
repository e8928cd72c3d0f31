/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`, which
 * kubectl's typed commands such as `create namespace` or `create configmap` send) into the JSON
 * object a real API server would see, for the built-in kinds in `internal/ProtoSchema.ts`. Unknown
 * kinds or fields fail instead of losing data. Go's JSON rules are kept: zero values of
 * `omitempty` fields are dropped, inlined structs merge into their parent, zero times vanish.
 */
import * as Result from "effect/Result";
import { goDuration, Reader, rfc3339, utf8 } from "./internal/ProtobufWire.ts";
import { kinds, messages } from "./internal/ProtoSchema.ts";

/** The content type of Kubernetes protobuf bodies. */
export const PROTOBUF_MEDIA = "application/vnd.kubernetes.protobuf";

const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"

interface Field {
  readonly name: string;
  readonly type: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly omitZero: boolean;
  readonly inline: boolean;
}

const compiled = new Map<string, ReadonlyMap<number, Field>>();

const schemaOf = (message: string): ReadonlyMap<number, Field> | undefined => {
  const cached = compiled.get(message);
  if (cached !== undefined) return cached;
  const text = messages[message];
  if (text === undefined) return undefined;
  const fields = new Map<number, Field>();
  for (const entry of text.split(";")) {
    const [number, rawName, rawType] = entry.split(" ") as [string, string, string];
    const flag = rawName.at(-1);
    const name = flag === "?" || flag === "*" ? rawName.slice(0, -1) : rawName;
    const repeated = rawType.startsWith("[]");
    const map = rawType.startsWith("map:");
    const type = repeated ? rawType.slice(2) : map ? rawType.slice(4) : rawType;
    fields.set(Number(number), { name, type, repeated, map, omitZero: flag === "?", inline: flag === "*" });
  }
  compiled.set(message, fields);
  return fields;
};

type Decoded = Result.Result<unknown, string>;

/** Go's `omitempty` zero values (structs are never empty, so objects are kept). */
const isZero = (value: unknown): boolean =>
  value === "" ||
  value === 0 ||
  value === false ||
  value === null ||
  (Array.isArray(value) && value.length === 0);

/** Reads one value of `type` whose wire data starts at the reader (wire type `wire`). */
const readValue = (reader: Reader, wire: number, type: string, where: string): Decoded => {
  const scalar = (): Result.Result<bigint, string> => {
    const value = reader.varint();
    return value === undefined ? Result.fail(`truncated varint in ${where}`) : Result.succeed(value);
  };
  switch (type) {
    case "bool":
      return Result.map(scalar(), (v) => v !== 0n);
    case "int32":
      return Result.map(scalar(), (v) => Number(BigInt.asIntN(32, v)));
    case "int64":
      return Result.map(scalar(), (v) => Number(BigInt.asIntN(64, v)));
    case "uint32":
    case "uint64":
      return Result.map(scalar(), (v) => Number(v));
    case "double":
    case "float": {
      const size = type === "double" ? 8 : 4;
      const bytes = reader.take(size);
      if (bytes === undefined) return Result.fail(`truncated ${type} in ${where}`);
      const view = new DataView(bytes.buffer, bytes.byteOffset, size);
      return Result.succeed(size === 8 ? view.getFloat64(0, true) : view.getFloat32(0, true));
    }
  }
  if (wire !== 2) return Result.fail(`unexpected wire type ${wire} for ${type} in ${where}`);
  const length = reader.varint();
  const bytes = length === undefined ? undefined : reader.take(Number(length));
  if (bytes === undefined) return Result.fail(`truncated field in ${where}`);
  switch (type) {
    case "string":
      return Result.succeed(utf8.decode(bytes));
    case "bytes":
      return Result.succeed(Buffer.from(bytes).toString("base64"));
    case "quantity":
      return Result.map(decodeRaw(bytes, { 1: "string" }, where), (v) => v[1] ?? "");
    case "rawjson":
      return Result.flatMap(decodeRaw(bytes, { 1: "bytes-raw" }, where), (v) =>
        Result.try({
          try: () => JSON.parse(utf8.decode((v[1] as Uint8Array | undefined) ?? new Uint8Array())) as unknown,
          catch: () => `invalid raw JSON in ${where}`,
        }),
      );
    case "intorstring":
      return Result.map(decodeRaw(bytes, { 1: "int64", 2: "int32", 3: "string" }, where), (v) =>
        v[1] === 1 ? (v[3] ?? "") : (v[2] ?? 0),
      );
    case "time":
    case "microtime":
      return Result.map(decodeRaw(bytes, { 1: "int64", 2: "int32" }, where), (v) => {
        const seconds = (v[1] as number | undefined) ?? 0;
        const nanos = (v[2] as number | undefined) ?? 0;
        if (seconds === 0 && nanos === 0) return null;
        return type === "time" ? rfc3339(seconds) : rfc3339(seconds, { nanos, digits: 6 });
      });
    case "typemeta":
      return decodeRaw(bytes, { 1: "string", 2: "string" }, where);
    case "duration":
      return Result.map(decodeRaw(bytes, { 1: "int64" }, where), (v) =>
        goDuration((v[1] as number | undefined) ?? 0),
      );
    default:
      return decodeMessage(bytes, type);
  }
};

/** Decodes a small fixed-layout helper message into a field-number record. */
const decodeRaw = (
  bytes: Uint8Array,
  layout: Readonly<Record<number, string>>,
  where: string,
): Result.Result<Record<number, unknown>, string> => {
  const reader = new Reader(bytes);
  const out: Record<number, unknown> = {};
  while (reader.at < reader.end) {
    const key = reader.varint();
    if (key === undefined) return Result.fail(`truncated key in ${where}`);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    const type = layout[number];
    if (type === undefined) return Result.fail(`unknown field ${number} in ${where}`);
    if (type === "bytes-raw") {
      const length = reader.varint();
      const raw = length === undefined ? undefined : reader.take(Number(length));
      if (raw === undefined) return Result.fail(`truncated field in ${where}`);
      out[number] = raw;
      continue;
    }
    const value = readValue(reader, wire, type, where);
    if (Result.isFailure(value)) return Result.fail(value.failure);
    out[number] = value.success;
  }
  return Result.succeed(out);
};

/** Reads one map entry (a message `{1: key, 2: value}`). */
const readMapEntry = (
  reader: Reader,
  wire: number,
  valueType: string,
  where: string,
): Result.Result<readonly [string, unknown], string> => {
  if (wire !== 2) return Result.fail(`unexpected wire type ${wire} for a map entry in ${where}`);
  const length = reader.varint();
  const bytes = length === undefined ? undefined : reader.take(Number(length));
  if (bytes === undefined) return Result.fail(`truncated map entry in ${where}`);
  const entry = new Reader(bytes);
  let key = "";
  let value: unknown = valueType === "string" || valueType === "bytes" ? "" : {};
  while (entry.at < entry.end) {
    const tag = entry.varint();
    if (tag === undefined) return Result.fail(`truncated map entry in ${where}`);
    const number = Number(tag >> 3n);
    const decoded = readValue(entry, Number(tag & 7n), number === 1 ? "string" : valueType, where);
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure);
    if (number === 1) key = String(decoded.success);
    else if (number === 2) value = decoded.success;
    else return Result.fail(`unknown field ${number} in a map entry of ${where}`);
  }
  return Result.succeed([key, value] as const);
};

/** Decodes a message of the schema into its JSON object. */
const decodeMessage = (bytes: Uint8Array, message: string): Decoded => {
  const schema = schemaOf(message);
  if (schema === undefined) return Result.fail(`no protobuf schema for ${message}`);
  const reader = new Reader(bytes);
  const out: Record<string, unknown> = {};
  while (reader.at < reader.end) {
    const key = reader.varint();
    if (key === undefined) return Result.fail(`truncated key in ${message}`);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    const field = schema.get(number);
    if (field === undefined) return Result.fail(`unsupported field ${number} of ${message}`);
    const where = `${message}.${field.name}`;
    if (field.map) {
      const entry = readMapEntry(reader, wire, field.type, where);
      if (Result.isFailure(entry)) return entry;
      const [entryKey, entryValue] = entry.success;
      out[field.name] = {
        ...((out[field.name] as Record<string, unknown> | undefined) ?? {}),
        [entryKey]: entryValue,
      };
      continue;
    }
    const packed =
      field.repeated &&
      wire === 2 &&
      ["bool", "int32", "int64", "uint32", "uint64", "double", "float"].includes(field.type);
    if (packed) {
      const length = reader.varint();
      const inner = length === undefined ? undefined : reader.take(Number(length));
      if (inner === undefined) return Result.fail(`truncated field in ${where}`);
      const items = new Reader(inner);
      const values: Array<unknown> = (out[field.name] as Array<unknown> | undefined) ?? [];
      while (items.at < items.end) {
        const value = readValue(
          items,
          field.type === "double" ? 1 : field.type === "float" ? 5 : 0,
          field.type,
          where,
        );
        if (Result.isFailure(value)) return value;
        values.push(value.success);
      }
      out[field.name] = values;
      continue;
    }
    const value = readValue(reader, wire, field.type, where);
    if (Result.isFailure(value)) return value;
    if (field.inline) {
      if (typeof value.success === "object" && value.success !== null) Object.assign(out, value.success);
      continue;
    }
    if (field.repeated) {
      const values = (out[field.name] as Array<unknown> | undefined) ?? [];
      values.push(value.success);
      out[field.name] = values;
    } else if (value.success === null || (field.omitZero && isZero(value.success))) {
      delete out[field.name];
    } else out[field.name] = value.success;
  }
  return Result.succeed(out);
};

/**
 * Decodes a protobuf request body (the `k8s\0` envelope around a `runtime.Unknown`) into the
 * JSON object it stands for, with `apiVersion` and `kind` set.
 *
 * @example
 * decode(bytesOfKubectlCreateNamespace)
 * // Result.succeed({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" }, spec: {}, status: {} })
 */
export const decode = (body: Uint8Array): Result.Result<Record<string, unknown>, string> => {
  if (body.length < 4 || MAGIC.some((byte, i) => body[i] !== byte)) {
    return Result.fail("the body does not start with the Kubernetes protobuf envelope");
  }
  return Result.flatMap(
    decodeRaw(
      body.subarray(4),
      { 1: "typemeta", 2: "bytes-raw", 3: "string", 4: "string" },
      "runtime.Unknown",
    ),
    (unknown) => {
      const typeMeta = (unknown[1] as Record<number, unknown> | undefined) ?? {};
      const apiVersion = String(typeMeta[1] ?? "");
      const kind = String(typeMeta[2] ?? "");
      const encoding = String(unknown[3] ?? "");
      if (encoding !== "")
        return Result.fail(`unsupported protobuf content encoding ${JSON.stringify(encoding)}`);
      const message = kinds[`${apiVersion}/${kind}`];
      if (message === undefined)
        return Result.fail(`the emulator does not decode protobuf bodies of ${apiVersion}, Kind=${kind}`);
      const raw = (unknown[2] as Uint8Array | undefined) ?? new Uint8Array();
      return Result.map(decodeMessage(raw, message), (object) => ({
        apiVersion,
        kind,
        ...(object as Record<string, unknown>),
      }));
    },
  );
};
