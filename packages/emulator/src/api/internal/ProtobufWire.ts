/**
 * The protobuf wire format as Kubernetes bodies use it: a reader of varints and length-delimited
 * fields over one buffer, and Go's text forms of times (RFC 3339) and durations.
 */
/** A protobuf wire reader over one buffer. */
export class Reader {
  readonly bytes: Uint8Array;
  at: number;
  readonly end: number;
  constructor(bytes: Uint8Array, at = 0, end = bytes.length) {
    this.bytes = bytes;
    this.at = at;
    this.end = end;
  }
  varint(): bigint | undefined {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.at >= this.end) return undefined;
      const byte = this.bytes[this.at++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    return undefined;
  }
  take(length: number): Uint8Array | undefined {
    if (length < 0 || this.at + length > this.end) return undefined;
    const slice = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return slice;
  }
}

export const utf8 = new TextDecoder("utf-8", { fatal: false });

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
export const rfc3339 = (
  seconds: number,
  fraction?: { readonly nanos: number; readonly digits: number },
): string => {
  const date = new Date(seconds * 1000);
  const base = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  if (fraction === undefined) return `${base}Z`;
  return `${base}.${pad(Math.floor(fraction.nanos / 10 ** (9 - fraction.digits)), fraction.digits)}Z`;
};

/** Go's `time.Duration.String()` for a number of nanoseconds (good to the millisecond). */
export const goDuration = (nanos: number): string => {
  if (nanos === 0) return "0s";
  const sign = nanos < 0 ? "-" : "";
  let rest = Math.abs(nanos) / 1e9;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  rest -= minutes * 60;
  const seconds = Number(rest.toFixed(9)).toString();
  return `${sign}${hours > 0 ? `${hours}h` : ""}${hours > 0 || minutes > 0 ? `${minutes}m` : ""}${seconds}s`;
};
