/**
 * Splitting a byte stream into JSON lines (the body of a watch response): chunks of any size,
 * lines of any length (many MiB), multi-byte characters split across chunks, `\r\n` endings and
 * a last line without a newline. Each line is decoded only once it is complete, so long lines
 * cost O(length), not O(length × chunks).
 */
import { isArrayNonEmpty as isNonEmptyArray, type NonEmptyReadonlyArray } from "effect/Array";
import type * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Pull from "effect/Pull";
import * as Stream from "effect/Stream";
import { KubeApiError } from "../KubeApiError.ts";

const NEWLINE = 10;
const decoder = new TextDecoder("utf-8");

class LineSplitter {
  private pending: Array<Uint8Array> = [];
  private pendingLength = 0;

  /** Appends the lines `chunk` completes to `lines`. */
  push(chunk: Uint8Array, lines: Array<string>): void {
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
  }

  /** Appends the unfinished last line, if any, to `lines`. */
  end(lines: Array<string>): void {
    if (this.pendingLength > 0) lines.push(this.take(new Uint8Array(0)));
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

/**
 * What to make of one non-blank line: push zero or more elements to `out` (and warnings to log to
 * `warnings`), or return the error that ends the stream after the elements of the lines before it.
 */
export type LineHandler<A> = (
  line: string,
  out: Array<A>,
  warnings: Array<string>,
) => KubeApiError | undefined;

/**
 * A byte stream's non-blank lines (UTF-8, line endings removed) made into elements by `handle`, a
 * received chunk at a time: one step of the stream per chunk however many lines it holds, not
 * several per line. A line's error ends the stream once the elements before it are emitted; a
 * failure of the bytes themselves ends it as it is, without reading the unfinished last line.
 */
export const linesWith = <A, E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  handle: LineHandler<A>,
): Stream.Stream<A, E | KubeApiError, R> =>
  Stream.transformPull(bytes, (pull) =>
    Effect.sync(() => {
      const splitter = new LineSplitter();
      let ended: Cause.Cause<E | Cause.Done<void>> | undefined;
      let failure: KubeApiError | undefined;
      const elementsOf = (
        lines: ReadonlyArray<string>,
        next: Effect.Effect<NonEmptyReadonlyArray<A>, E | KubeApiError | Cause.Done<void>>,
      ) => {
        const out: Array<A> = [];
        const warnings: Array<string> = [];
        for (const raw of lines) {
          const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
          if (line.trim() === "") continue;
          failure = handle(line, out, warnings);
          if (failure !== undefined) break;
        }
        const emitted = isNonEmptyArray(out) ? Effect.succeed(out) : next;
        return warnings.length === 0
          ? emitted
          : Effect.forEach(warnings, (warning) => Effect.logWarning(warning), { discard: true }).pipe(
              Effect.andThen(emitted),
            );
      };
      const step: Effect.Effect<
        NonEmptyReadonlyArray<A>,
        E | KubeApiError | Cause.Done<void>
      > = Effect.suspend(() => {
        if (failure !== undefined) return Effect.fail(failure);
        if (ended !== undefined) return Effect.failCause(ended);
        return Effect.matchCauseEffect(pull, {
          onFailure: (cause) => {
            ended = cause;
            if (!Pull.isDoneCause(cause)) return Effect.failCause(cause);
            const last: Array<string> = [];
            splitter.end(last);
            return elementsOf(last, step);
          },
          onSuccess: (chunk) => {
            const lines: Array<string> = [];
            for (const bytes of chunk) splitter.push(bytes, lines);
            return elementsOf(lines, step);
          },
        });
      });
      return step;
    }),
  );

const keepLine: LineHandler<string> = (line, out) => {
  out.push(line);
  return undefined;
};

/** The non-blank lines of a byte stream, decoded as UTF-8, without their line endings. */
export const lines = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
): Stream.Stream<string, E | KubeApiError, R> => linesWith(bytes, keepLine);

/** What to make of one line's JSON value, as a {@link LineHandler} makes of the line. */
export type ValueHandler<A> = (
  value: unknown,
  out: Array<A>,
  warnings: Array<string>,
) => KubeApiError | undefined;

/**
 * A line handler that parses each line as JSON and hands the value to `decode`; a line that is
 * not JSON is an error naming its size and beginning.
 */
export const json =
  <A>(decode: ValueHandler<A>): LineHandler<A> =>
  (line, out, warnings) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      return KubeApiError.transport(
        `Malformed JSON line in a streamed response (${line.length} characters, starting with ${JSON.stringify(line.slice(0, 80))}).`,
        cause,
      );
    }
    return decode(value, out, warnings);
  };

const keepValue = json<unknown>((value, out) => {
  out.push(value);
  return undefined;
});

/** The JSON values of a JSON-lines byte stream; a malformed line fails the stream. */
export const values = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
): Stream.Stream<unknown, E | KubeApiError, R> => linesWith(bytes, keepValue);
