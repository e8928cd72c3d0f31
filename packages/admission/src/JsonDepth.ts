/**
 * The nesting depth of a JSON text, measured by one pass over its bytes without parsing it, so
 * that an over-deep document is refused before any recursive code (parsing into objects,
 * diffing, patching, serialising) can exhaust the stack on it. Pure.
 */

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than `max`. Brackets inside
 * strings do not count; the text need not be valid JSON (parsing judges that afterwards).
 *
 * @example
 * JsonDepth.exceeds(Buffer.from('{"a":[[1]]}'), 3) // false
 * JsonDepth.exceeds(Buffer.from('{"a":[[1]]}'), 2) // true
 * JsonDepth.exceeds(Buffer.from('"[[[[["'), 1) // false
 */
export const exceeds = (bytes: Uint8Array, max: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth++;
      if (depth > max) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
};
