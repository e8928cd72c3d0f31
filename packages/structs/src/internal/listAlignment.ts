/**
 * Aligning two lists for an index-precise JSON-patch: the items both lists keep (a longest
 * common subsequence of the differing middle, after trimming the common prefix and suffix)
 * become anchors, and the stretches between anchors are the gaps that need operations.
 */
import { isObject } from "../Json.ts";

/** A stretch of `a` (`aStart`, `aLength`) replaced by a stretch of `b` (`bStart`, `bLength`). */
export interface Gap {
  readonly aStart: number;
  readonly aLength: number;
  readonly bStart: number;
  readonly bLength: number;
}

/** Beyond this many cells (middle of `a` × middle of `b`), the middles form one gap. */
const MAX_CELLS = 1_000_000;

/** A text equal for two JSON values exactly when they are deeply equal (keys sorted). */
const canonical = (x: unknown): string => {
  if (Array.isArray(x)) return "[" + x.map(canonical).join(",") + "]";
  if (isObject(x)) {
    const keys = Object.keys(x)
      .filter((k) => x[k] !== undefined)
      .sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(x[k])).join(",") + "}";
  }
  return x === undefined ? "null" : (JSON.stringify(x) ?? "null");
};

/**
 * The gaps between `a` and `b`, in order, with positions in the original lists. Items outside
 * the gaps are equal in both lists and keep their relative order.
 */
export const gaps = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): ReadonlyArray<Gap> => {
  const ka = a.map(canonical);
  const kb = b.map(canonical);
  const shortest = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < shortest && ka[prefix] === kb[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shortest - prefix && ka[a.length - 1 - suffix] === kb[b.length - 1 - suffix]) suffix++;
  const n = a.length - prefix - suffix;
  const m = b.length - prefix - suffix;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || n * m > MAX_CELLS)
    return [{ aStart: prefix, aLength: n, bStart: prefix, bLength: m }];

  // lcs[i][j]: length of the longest common subsequence of a-middle[i..] and b-middle[j..].
  const lcs: Array<Uint32Array> = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i]!;
    const next = lcs[i + 1]!;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = ka[prefix + i] === kb[prefix + j] ? next[j + 1]! + 1 : Math.max(next[j]!, row[j + 1]!);
    }
  }

  const out: Array<Gap> = [];
  let i = 0;
  let j = 0;
  let gapA = 0;
  let gapB = 0;
  const flush = () => {
    if (i > gapA || j > gapB)
      out.push({ aStart: prefix + gapA, aLength: i - gapA, bStart: prefix + gapB, bLength: j - gapB });
  };
  while (i < n && j < m) {
    if (ka[prefix + i] === kb[prefix + j]) {
      flush();
      i++;
      j++;
      gapA = i;
      gapB = j;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  i = n;
  j = m;
  flush();
  return out;
};
