/**
 * events.k8s.io/v1 Events are the core v1 Events seen through another version: one storage,
 * converted field by field (regarding ↔ involvedObject, note ↔ message, deprecated* ↔ the old
 * timestamps and count, reportingController ↔ reportingComponent), as the apiserver converts them.
 */
import { isObject, type JsonObject } from "./internal/Json.ts";

const PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
  ["reportingController", "reportingComponent"],
];

const rename = (obj: JsonObject, from: 0 | 1): JsonObject => {
  const to = from === 0 ? 1 : 0;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    const pair = PAIRS.find((p) => p[from] === k);
    out[pair === undefined ? k : pair[to]] = v;
  }
  return out;
};

const isZero = (v: unknown): boolean =>
  v === null || v === "" || v === 0 || (isObject(v) && Object.keys(v).length === 0);

/** An events.k8s.io/v1 Event in its stored core v1 form. */
export const toCore = (obj: JsonObject): JsonObject => ({
  ...rename(obj, 0),
  apiVersion: "v1",
  kind: "Event",
});

/** events.k8s.io/v1 Event fields in Go struct order, and whether each is omitted when empty. */
const FIELDS: ReadonlyArray<readonly [string, boolean]> = [
  ["eventTime", false],
  ["series", true],
  ["reportingController", true],
  ["reportingInstance", true],
  ["action", true],
  ["reason", true],
  ["regarding", false],
  ["related", true],
  ["note", true],
  ["type", true],
  ["deprecatedSource", false],
  ["deprecatedFirstTimestamp", false],
  ["deprecatedLastTimestamp", false],
  ["deprecatedCount", true],
];

/** A stored core v1 Event as events.k8s.io/v1 serves it (fields in its struct order, empty omitempty ones left out). */
export const fromCore = (obj: JsonObject, version: string): JsonObject => {
  const renamed = rename(obj, 1);
  const out: JsonObject = {
    kind: "Event",
    apiVersion: `events.k8s.io/${version}`,
    metadata: renamed.metadata,
  };
  for (const [k, omitEmpty] of FIELDS) {
    const v = renamed[k];
    if (v === undefined) {
      if (!omitEmpty) out[k] = k === "regarding" || k === "deprecatedSource" ? {} : null;
    } else if (!(omitEmpty && isZero(v))) out[k] = v;
  }
  return out;
};

/** events.k8s.io field selector labels in terms of the stored core fields. */
export const coreFieldLabel = (label: string): string => {
  if (label.startsWith("regarding.")) return `involvedObject.${label.slice("regarding.".length)}`;
  return label === "reportingController" ? "reportingComponent" : label;
};
