/**
 * Splitting a byte stream into JSON lines (the body of a watch response): chunks of any size,
 * lines of any length (many MiB), multi-byte characters split across chunks, `\r\n` endings and
 * a last line without a newline. Each line is decoded only once it is complete, so long lines
 * cost O(length), not O(length × chunks).
 */
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { KubeApiError } from "../KubeApiError.ts";

const NEWLINE = 10;
const decoder = new TextDecoder("utf-8");

class LineSplitter {
  private pending: Array<Uint8Array> = [];
  private pendingLength = 0;

  push(chunk: Uint8Array): ReadonlyArray<string> {
    const lines: Array<string> = [];
    let start = 0;
    let index = chunk.indexOf(NEWLINE, start);
    while (index !== -1) {
      lines.push(this.take(chunk.subarray(start, index)));
      start = index + 1;
      index = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      // Copy: transports may reuse their buffers after handing a chunk over.
      this.pending.push(chunk.slice(start));
      this.pendingLength += chunk.length - start;
    }
    return lines;
  }

  end(): ReadonlyArray<string> {
    return this.pendingLength > 0 ? [this.take(new Uint8Array(0))] : [];
  }

  private take(tail: Uint8Array): string {
    let bytes = tail;
    if (this.pendingLength > 0) {
      bytes = new Uint8Array(this.pendingLength + tail.length);
      let offset = 0;
      for (const part of this.pending) {
        bytes.set(part, offset);
        offset += part.length;
      }
      bytes.set(tail, offset);
      this.pending = [];
      this.pendingLength = 0;
    }
    return decoder.decode(bytes);
  }
}

/** The non-blank lines of a byte stream, decoded as UTF-8, without their line endings. */
export const lines = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<string, E, R> =>
  bytes.pipe(
    Stream.mapAccum(
      () => new LineSplitter(),
      (splitter, chunk: Uint8Array) => [splitter, splitter.push(chunk)] as const,
      { onHalt: (splitter) => splitter.end() },
    ),
    Stream.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)),
    Stream.filter((line) => line.trim() !== ""),
  );

/** The JSON values of a JSON-lines byte stream; a malformed line fails the stream. */
export const values = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
): Stream.Stream<unknown, E | KubeApiError, R> =>
  lines(bytes).pipe(
    Stream.mapEffect((line) =>
      Effect.try({
        try: () => JSON.parse(line) as unknown,
        catch: (cause) =>
          KubeApiError.transport(
            `Malformed JSON line in a streamed response (${line.length} characters, starting with ${JSON.stringify(line.slice(0, 80))}).`,
            cause,
          ),
      }),
    ),
  );
