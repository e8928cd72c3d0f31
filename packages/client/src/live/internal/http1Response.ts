/**
 * An HTTP/1.1 response read incrementally from the bytes of a connection, for the lean request
 * path of the live transport: the status line and headers, then the body framed as the headers
 * say (a `content-length`, chunked transfer coding, or until the connection closes; none for
 * 204, 304 and 1xx, which are skipped). The reader owns no socket and does no I/O: it is fed the
 * chunks as they arrive, and the end of the stream, and tells at each step whether it needs
 * more, has a whole response (and whether the connection may carry another), or has found the
 * bytes malformed (with a reason naming the problem). Heads and chunk-size lines are bounded, so
 * a hostile server cannot make it buffer without limit before the body.
 */

import { type Head, parseHead } from "./http1Head.ts";

/** The largest status line plus headers accepted (the API server's are well below 1 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;
/** The largest chunk-size line (with extensions) or trailer section accepted. */
const MAX_LINE_BYTES = 4096;

/** A whole response. */
export interface Response {
  readonly status: number;
  /** Lower-case names; repeated headers joined by ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /** Whether the connection may carry another request: keep-alive, and nothing read past the end. */
  readonly reusable: boolean;
}

/** What a step of the reader found. */
export type Step =
  | { readonly _tag: "More" }
  | { readonly _tag: "Done"; readonly response: Response }
  | { readonly _tag: "Malformed"; readonly reason: string }
  /** The stream ended before the response did; `started` says whether any byte had come. */
  | { readonly _tag: "Cut"; readonly started: boolean };

const MORE: Step = { _tag: "More" };
const EMPTY = Buffer.alloc(0);
const malformed = (reason: string): Step => ({ _tag: "Malformed", reason });

const CRLF_CRLF = Buffer.from("\r\n\r\n");

/**
 * A reader of one response (one per request sent).
 *
 * @example
 * ```ts
 * const reader = Http1Response.reader()
 * reader.push(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"))
 * // { _tag: "Done", response: { status: 200, headers: { "content-length": "2" }, body: <{}>, reusable: true } }
 * ```
 */
export interface Reader {
  /** Feeds the next bytes from the connection. */
  readonly push: (chunk: Buffer) => Step;
  /** The connection's stream ended (no more bytes will come). */
  readonly end: () => Step;
}

/**
 * Where a streamed response goes as it is read (a watch): its head once, then each piece of its
 * body as it arrives, instead of a whole body at the end.
 */
export interface Sink {
  readonly head: (status: number, headers: Readonly<Record<string, string>>) => void;
  readonly body: (chunk: Buffer) => void;
}

/**
 * A new reader for the response to one request; with a `sink`, the head and the body's pieces
 * go to it as they are read, and `Done` comes with an empty body.
 */
export const reader = (sink?: Sink): Reader => {
  /** Bytes of the head (or of a chunk-size line or the trailers) waiting for their end. */
  let pending: Buffer | undefined;
  let head: Head | undefined;
  let started = false;
  let finished = false;
  const body: Array<Buffer> = [];
  let bodyBytes = 0;
  /** Chunked: bytes left of the current chunk's data (and its CRLF: `+2`), or -1 for a size line. */
  let chunkLeft = -1;
  let inTrailers = false;

  const done = (reusable: boolean): Step => {
    finished = true;
    const current = head as Head;
    const whole =
      body.length === 0 ? EMPTY : body.length === 1 ? (body[0] as Buffer) : Buffer.concat(body, bodyBytes);
    body.length = 0;
    return {
      _tag: "Done",
      response: { status: current.status, headers: current.headers, body: whole, reusable },
    };
  };

  const take = (data: Buffer) => {
    if (data.length === 0) return;
    bodyBytes += data.length;
    if (sink !== undefined) sink.body(data);
    else body.push(data);
  };

  /** Reads chunked data from `data` at `at`; `Done` at the end of the trailers. */
  const chunked = (data: Buffer, at: number): Step => {
    let offset = at;
    while (offset < data.length) {
      if (chunkLeft > 0) {
        const dataLeft = chunkLeft - 2;
        if (dataLeft > 0) {
          const end = Math.min(data.length, offset + dataLeft);
          take(data.subarray(offset, end));
          chunkLeft -= end - offset;
          offset = end;
          continue;
        }
        // The CRLF after a chunk's data.
        const expected = dataLeft === 0 ? 0x0d : 0x0a;
        if (data[offset] !== expected) return malformed("chunk data not followed by CRLF");
        chunkLeft--;
        offset++;
        if (chunkLeft === 0) chunkLeft = -1;
        continue;
      }
      // A size line, or a trailer line: up to the next CRLF.
      const joined =
        pending === undefined ? data.subarray(offset) : Buffer.concat([pending, data.subarray(offset)]);
      const eol = joined.indexOf("\r\n");
      if (eol === -1) {
        if (joined.length > MAX_LINE_BYTES) return malformed("chunk-size line or trailer too long");
        pending = joined;
        return MORE;
      }
      const consumed = eol + 2 - (pending?.length ?? 0);
      const line = joined.toString("latin1", 0, eol);
      pending = undefined;
      offset += consumed;
      if (inTrailers) {
        if (line === "") return offset === data.length ? done(head?.keepAlive === true) : done(false);
        continue;
      }
      const size = line.split(";", 1)[0]?.trim() ?? "";
      if (!/^[0-9A-Fa-f]{1,12}$/.test(size))
        return malformed(`invalid chunk size ${JSON.stringify(line.slice(0, 40))}`);
      const n = Number.parseInt(size, 16);
      if (n === 0) inTrailers = true;
      else chunkLeft = n + 2;
    }
    return MORE;
  };

  /** Reads the body from `data` at `at`. */
  const bodyFrom = (data: Buffer, at: number): Step => {
    const current = head as Head;
    switch (current.framing._tag) {
      case "None":
        return done(current.keepAlive && at === data.length);
      case "Length": {
        const want = current.framing.length - bodyBytes;
        const end = Math.min(data.length, at + want);
        take(data.subarray(at, end));
        if (bodyBytes < current.framing.length) return MORE;
        return done(current.keepAlive && end === data.length);
      }
      case "Chunked":
        return chunked(data, at);
      case "UntilClose":
        take(data.subarray(at));
        return MORE;
    }
  };

  const push = (chunk: Buffer): Step => {
    if (finished) return malformed("bytes after the end of the response");
    if (chunk.length > 0) started = true;
    if (head !== undefined) return bodyFrom(chunk, 0);
    let data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    pending = undefined;
    for (;;) {
      const end = data.indexOf(CRLF_CRLF);
      if (end === -1) {
        if (data.length > MAX_HEAD_BYTES)
          return malformed(`response head larger than ${MAX_HEAD_BYTES} bytes`);
        pending = data;
        return MORE;
      }
      if (end > MAX_HEAD_BYTES) return malformed(`response head larger than ${MAX_HEAD_BYTES} bytes`);
      const parsed = parseHead(data.toString("latin1", 0, end));
      if (typeof parsed === "string") return malformed(parsed);
      // Interim responses (100 Continue, 103 Early Hints) precede the real one.
      if (parsed.status < 200 && parsed.status !== 101) {
        data = data.subarray(end + 4);
        continue;
      }
      if (parsed.status === 101) return malformed("unexpected protocol switch (101)");
      head = parsed;
      sink?.head(parsed.status, parsed.headers);
      return bodyFrom(data, end + 4);
    }
  };

  const end = (): Step => {
    if (finished) return MORE;
    if (head?.framing._tag === "UntilClose") return done(false);
    return { _tag: "Cut", started };
  };

  return { push, end };
};
