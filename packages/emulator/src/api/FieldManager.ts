/**
 * The field manager a write is recorded under in `managedFields`: the one the request names
 * (`fieldManager`), else the user agent's product name, as kube-apiserver defaults it.
 */
import type { ApiRequest } from "./Emulator.ts";

/** The most UTF-8 bytes of a field manager named after a user agent (kube-apiserver's limit). */
const MAX_MANAGER_BYTES = 128;
const CONTROL = /\p{C}/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** How many bytes UTF-8 takes for the code point `ch` starts with. */
const utf8Bytes = (ch: string): number => {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
};

/**
 * The field manager of a write: `fieldManager`, else the user agent's product name (before the
 * first `/`), as the apiserver defaults it: without control characters, at most 128 bytes of UTF-8
 * (whole characters), `unknown` when nothing is left.
 *
 * @example
 * managerOf({ query: new URLSearchParams(), headers: { "user-agent": "kubectl/v1.36.3 (linux/amd64)" } }) // "kubectl"
 */
export const managerOf = (request: Pick<ApiRequest, "query" | "headers">): string => {
  const explicit = request.query.get("fieldManager");
  if (explicit !== null && explicit !== "") return explicit;
  const agent = request.headers["user-agent"] ?? "";
  const slash = agent.indexOf("/");
  const product = slash === -1 ? agent : agent.slice(0, slash);
  // The usual user agent: printable ASCII, one byte a character.
  if (PRINTABLE_ASCII.test(product)) {
    return product === "" ? "unknown" : product.slice(0, MAX_MANAGER_BYTES);
  }
  let out = "";
  let bytes = 0;
  for (const ch of product) {
    if (CONTROL.test(ch)) continue;
    bytes += utf8Bytes(ch);
    if (bytes > MAX_MANAGER_BYTES) break;
    out += ch;
  }
  return out === "" ? "unknown" : out;
};
