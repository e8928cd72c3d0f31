/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), which
 * typed clients such as `kubectl create namespace` send for built-in types: the `k8s\0` envelope,
 * the wire format, and the JSON form of each field (times, quantities, int-or-strings, bytes).
 */
import { Result } from "effect";
import { decodeText, type JsonObject } from "./internal/Json.ts";
import { MESSAGES, ROOTS } from "./internal/ProtoSchema.ts";
import { formatMicroTime, formatTime } from "./internal/Time.ts";

export const PROTOBUF_MEDIA = "application/vnd.kubernetes.protobuf";

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** Fields that are pointers in Go: their zero values are meaningful and kept. */
const KEEP_ZERO = new Set([
  "replicas",
  "gracePeriodSeconds",
  "orphanDependents",
  "immutable",
  "automountServiceAccountToken",
  "terminationGracePeriodSeconds",
  "activeDeadlineSeconds",
  "revisionHistoryLimit",
  "progressDeadlineSeconds",
  "timeoutSeconds",
  "count",
]);

class Reader {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
  constructor(bytes: Uint8Array, start: number, end: number) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }
  varint(): bigint | undefined {
    let result = 0n;
    let shift = 0n;
    while (this.pos < this.end) {
      const b = this.bytes[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) return undefined;
    }
    return undefined;
  }
  take(n: number): Uint8Array | undefined {
    if (n < 0 || this.pos + n > this.end) return undefined;
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

const signed = (v: bigint, bits: 32 | 64): number => Number(BigInt.asIntN(bits, v));

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");

type Decoded =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };
const fail = (error: string): Decoded => ({ ok: false, error });

const special = (type: string, obj: JsonObject): unknown => {
  switch (type) {
    case "meta.v1.Time": {
      const s = Number(obj.seconds ?? 0);
      return s === 0 && Number(obj.nanos ?? 0) === 0 ? null : formatTime(s * 1000);
    }
    case "meta.v1.MicroTime": {
      const s = Number(obj.seconds ?? 0);
      const n = Number(obj.nanos ?? 0);
      return s === 0 && n === 0 ? null : formatMicroTime(s * 1000 + Math.floor(n / 1e6));
    }
    case "resource.Quantity":
      return obj.string ?? "0";
    case "intstr.IntOrString":
      return Number(obj.type ?? 0) === 1 ? (obj.strVal ?? "") : Number(obj.intVal ?? 0);
    case "runtime.RawExtension":
    case "meta.v1.FieldsV1": {
      const raw = obj.raw ?? obj.Raw;
      if (typeof raw !== "string") return {};
      try {
        return JSON.parse(Buffer.from(raw, "base64").toString("utf8"));
      } catch {
        return {};
      }
    }
    case "meta.v1.Duration": {
      const ns = Number(obj.duration ?? 0);
      return `${ns / 1e9}s`;
    }
    default:
      return undefined;
  }
};

const scalar = (type: string, wire: number, r: Reader): Decoded => {
  if (type === "double" || type === "float") {
    const size = type === "double" ? 8 : 4;
    const b = r.take(size);
    if (b === undefined) return fail("truncated number");
    const view = new DataView(b.buffer, b.byteOffset, size);
    return { ok: true, value: size === 8 ? view.getFloat64(0, true) : view.getFloat32(0, true) };
  }
  if (type === "string" || type === "bytes") {
    if (wire !== 2) return fail(`wire type ${wire} for ${type}`);
    const len = r.varint();
    const b = len === undefined ? undefined : r.take(Number(len));
    if (b === undefined) return fail("truncated bytes");
    if (type === "bytes") return { ok: true, value: base64(b) };
    const s = decodeText(b);
    return s === undefined ? fail("invalid UTF-8 in a string") : { ok: true, value: s };
  }
  const v = r.varint();
  if (v === undefined) return fail("truncated varint");
  if (type === "bool") return { ok: true, value: v !== 0n };
  if (type === "int32") return { ok: true, value: signed(v, 32) };
  return { ok: true, value: signed(v, 64) };
};

const message = (type: string, bytes: Uint8Array, start: number, end: number, depth: number): Decoded => {
  const fields = MESSAGES[type];
  if (fields === undefined) return fail(`unknown message ${type}`);
  if (depth > 64) return fail("message nesting too deep");
  const r = new Reader(bytes, start, end);
  const out: JsonObject = {};
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === undefined) return fail("truncated tag");
    const num = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    const field = fields.find((f) => f[0] === num);
    if (field === undefined) {
      const skipped = skip(r, wire);
      if (!skipped) return fail(`cannot skip wire type ${wire}`);
      continue;
    }
    const [, name, ftype, kind] = field;
    let value: Decoded;
    if (kind === 2) {
      const len = r.varint();
      const b = len === undefined ? undefined : r.take(Number(len));
      if (b === undefined) return fail("truncated map entry");
      const entry = mapEntry(ftype, b, depth);
      if (!entry.ok) return entry;
      const [k, v] = entry.value as [string, unknown];
      const map = (out[name] ?? {}) as JsonObject;
      map[k] = v;
      out[name] = map;
      continue;
    }
    if (MESSAGES[ftype] !== undefined) {
      const len = r.varint();
      if (len === undefined || r.pos + Number(len) > r.end) return fail("truncated message");
      const from = r.pos;
      r.pos += Number(len);
      value = message(ftype, bytes, from, from + Number(len), depth + 1);
    } else if (kind === 1 && wire === 2 && ftype !== "string" && ftype !== "bytes") {
      const len = r.varint();
      const b = len === undefined ? undefined : r.take(Number(len));
      if (b === undefined) return fail("truncated packed field");
      const packed = new Reader(b, 0, b.length);
      const items: Array<unknown> = [];
      while (packed.pos < packed.end) {
        const item = scalar(ftype, ftype === "double" ? 1 : ftype === "float" ? 5 : 0, packed);
        if (!item.ok) return item;
        items.push(item.value);
      }
      out[name] = [...((out[name] as Array<unknown>) ?? []), ...items];
      continue;
    } else value = scalar(ftype, wire, r);
    if (!value.ok) return value;
    if (kind === 1) out[name] = [...((out[name] as Array<unknown>) ?? []), value.value];
    else out[name] = value.value;
  }
  const converted = special(type, out);
  if (converted !== undefined) return { ok: true, value: converted };
  return { ok: true, value: clean(out) };
};

const mapEntry = (valueType: string, b: Uint8Array, depth: number): Decoded => {
  const r = new Reader(b, 0, b.length);
  let key = "";
  let value: unknown = valueType === "string" || valueType === "bytes" ? "" : {};
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === undefined) return fail("truncated map entry");
    const num = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (num === 1) {
      const k = scalar("string", wire, r);
      if (!k.ok) return k;
      key = k.value as string;
    } else if (num === 2) {
      if (MESSAGES[valueType] !== undefined) {
        const len = r.varint();
        if (len === undefined || r.pos + Number(len) > r.end) return fail("truncated map value");
        const from = r.pos;
        r.pos += Number(len);
        const v = message(valueType, b, from, from + Number(len), depth + 1);
        if (!v.ok) return v;
        value = v.value;
      } else {
        const v = scalar(valueType, wire, r);
        if (!v.ok) return v;
        value = v.value;
      }
    } else if (!skip(r, wire)) return fail("bad map entry");
  }
  return { ok: true, value: [key, value] };
};

const skip = (r: Reader, wire: number): boolean => {
  switch (wire) {
    case 0:
      return r.varint() !== undefined;
    case 1:
      return r.take(8) !== undefined;
    case 2: {
      const len = r.varint();
      return len !== undefined && r.take(Number(len)) !== undefined;
    }
    case 5:
      return r.take(4) !== undefined;
    default:
      return false;
  }
};

/** Drops the zero values Go's protobuf marshalling writes for non-pointer fields (as `omitempty` would). */
const clean = (obj: JsonObject): JsonObject => {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null) continue;
    if (!KEEP_ZERO.has(k) && (v === "" || v === 0 || v === false)) continue;
    out[k] = v;
  }
  return out;
};

/**
 * Decodes a protobuf body into the object's JSON form.
 *
 * @example
 * decode(bytesFromKubectlCreateNamespace) // Result.succeed({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" }, spec: {}, status: {} })
 */
export const decode = (body: Uint8Array): Result.Result<JsonObject, string> => {
  if (body.length < 4 || MAGIC.some((m, i) => body[i] !== m))
    return Result.fail("the body is not a Kubernetes protobuf envelope");
  const unknown = message("runtime.Unknown", body, 4, body.length, 0);
  if (!unknown.ok) return Result.fail(unknown.error);
  const u = unknown.value as JsonObject;
  const typeMeta = (u.typeMeta ?? {}) as JsonObject;
  const apiVersion = String(typeMeta.apiVersion ?? "");
  const kind = String(typeMeta.kind ?? "");
  const root = ROOTS[`${apiVersion}/${kind}`];
  if (root === undefined) return Result.fail(`no protobuf decoding for ${apiVersion}, Kind=${kind}`);
  const raw = typeof u.raw === "string" ? Buffer.from(u.raw, "base64") : new Uint8Array();
  const decoded = message(root, raw, 0, raw.length, 0);
  if (!decoded.ok) return Result.fail(decoded.error);
  return Result.succeed({ apiVersion, kind, ...(decoded.value as JsonObject) });
};
