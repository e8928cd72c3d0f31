/**
 * The decoding of a `metav1.MicroTime` (a Lease's `acquireTime` and `renewTime`): a JSON string
 * that Go's `time.Parse` reads with the layout `2006-01-02T15:04:05.000000Z07:00` — exactly six
 * fractional digits, `Z` or a `±hh:mm` offset — with `time.Parse`'s error wording for the first
 * element that does not fit.
 */
import { goType } from "./Json.ts";

const LAYOUT = "2006-01-02T15:04:05.000000Z07:00";

type Element = { readonly layout: string; readonly take: (rest: string) => number | string | undefined };

/** `n` digits; the range check names the field Go names when the value is out of range. */
const digits = (layout: string, n: number, max?: [number, string]): Element => ({
  layout,
  take: (rest) => {
    const head = rest.slice(0, n);
    if (!new RegExp(`^[0-9]{${n}}$`).test(head)) return undefined;
    if (max !== undefined && Number(head) > max[0]) return max[1];
    return n;
  },
});
const literal = (text: string): Element => ({
  layout: text,
  take: (rest) => (rest.startsWith(text) ? text.length : undefined),
});

const ELEMENTS: ReadonlyArray<Element> = [
  digits("2006", 4),
  literal("-"),
  digits("01", 2, [12, "month out of range"]),
  literal("-"),
  digits("02", 2, [31, "day out of range"]),
  literal("T"),
  digits("15", 2, [23, "hour out of range"]),
  literal(":"),
  digits("04", 2, [59, "minute out of range"]),
  literal(":"),
  digits("05", 2, [59, "second out of range"]),
  { layout: ".000000", take: (rest) => (/^\.[0-9]{6}/.test(rest) ? 7 : undefined) },
  {
    layout: "Z07:00",
    take: (rest) => (rest.startsWith("Z") ? 1 : /^[+-][0-9]{2}:[0-9]{2}/.test(rest) ? 6 : undefined),
  },
];

/**
 * Why a JSON value is no MicroTime (the decoder's message), or `undefined` when it is one.
 *
 * @example
 * problem("2026-01-02T03:04:05Z") // 'parsing time "2026-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
 */
export const problem = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string")
    return `json: cannot unmarshal ${goType(value)} into Go value of type string`;
  const quoted = JSON.stringify(value);
  let rest = value;
  let layoutRest = LAYOUT;
  for (const element of ELEMENTS) {
    const taken = element.take(rest);
    if (taken === undefined)
      return `parsing time ${quoted} as "${LAYOUT}": cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(layoutRest.slice(0, element.layout.length))}`;
    if (typeof taken === "string") return `parsing time ${quoted}: ${taken}`;
    rest = rest.slice(taken);
    layoutRest = layoutRest.slice(element.layout.length);
  }
  return rest === "" ? undefined : `parsing time ${quoted}: extra text: ${JSON.stringify(rest)}`;
};
