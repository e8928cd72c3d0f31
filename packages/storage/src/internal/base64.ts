/**
 * Base64 encoding of small byte arrays with configurable alternative characters, as Python's
 * `base64.b64encode(data, altchars=...)`. Pure code has no `btoa`/`Buffer`, and the hash
 * suffixes of annotation keys need the `-`/`.` alphabet anyway.
 */

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Encode bytes as padded base64, using `alt62` and `alt63` in place of `+` and `/`. */
export const encode = (bytes: Uint8Array, alt62 = "+", alt63 = "/"): string => {
  const alphabet = STANDARD + alt62 + alt63;
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] ?? 0;
    const b1 = bytes[i + 1] ?? 0;
    const b2 = bytes[i + 2] ?? 0;
    const triple = (b0 << 16) | (b1 << 8) | b2;
    const remaining = bytes.length - i;
    out += alphabet[(triple >> 18) & 63];
    out += alphabet[(triple >> 12) & 63];
    out += remaining > 1 ? alphabet[(triple >> 6) & 63] : "=";
    out += remaining > 2 ? alphabet[triple & 63] : "=";
  }
  return out;
};
