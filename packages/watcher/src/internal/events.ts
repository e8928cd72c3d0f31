/**
 * Raw watch events and list items as the watcher's state machine needs them: `kind` and
 * `apiVersion` filled into listed items, raw events turned into machine inputs, API failures
 * into the machine's failures.
 */
import type { RawBody } from "@kopf/structs";
import type { ApiFailure, RawWatchEvent } from "../ListWatch.ts";
import type * as WatchState from "../WatchState.ts";

/**
 * Fills `kind` and `apiVersion` of a listed item from its list when missing (Kubernetes omits
 * them in list items): `kind` is the list's kind without the `List` suffix.
 *
 * @example
 * fillKind({ metadata: { name: "x" } }, "KopfExampleList", "kopf.dev/v1")
 * // { kind: "KopfExample", apiVersion: "kopf.dev/v1", metadata: { name: "x" } }
 */
export const fillKind = (
  item: RawBody,
  listKind: string | undefined,
  apiVersion: string | undefined,
): RawBody => {
  const kind = listKind?.endsWith("List") ? listKind.slice(0, -"List".length) : undefined;
  const needsKind = item.kind === undefined && kind !== undefined && kind !== "";
  const needsVersion = item.apiVersion === undefined && apiVersion !== undefined;
  if (!needsKind && !needsVersion) return item;
  return {
    ...(needsKind ? { kind } : {}),
    ...(needsVersion ? { apiVersion } : {}),
    ...item,
  };
};

/** Turns one raw watch event into the state machine's input. */
export const toInput = (event: RawWatchEvent): WatchState.Input<RawBody> => {
  const rv = event.object?.metadata?.resourceVersion;
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
      return { _tag: "Event", type: event.type, object: event.object, resourceVersion: rv };
    case "BOOKMARK":
      return { _tag: "Bookmark", resourceVersion: rv };
    case "ERROR": {
      const status = (event.object ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
      return {
        _tag: "ErrorEvent",
        status: {
          code: typeof status.code === "number" ? status.code : undefined,
          reason: typeof status.reason === "string" ? status.reason : undefined,
          message: typeof status.message === "string" ? status.message : undefined,
        },
      };
    }
    default:
      return { _tag: "UnknownEvent", type: String(event.type) };
  }
};

export const failureOf = (error: ApiFailure): WatchState.Failure => ({
  reason: error.reason,
  message: error.message,
  status: error.status,
  retryAfterSeconds: error.retryAfterSeconds,
});

/**
 * A defect of the API client (a bug, not an API error) as a failure: the watcher reports it as
 * a problem and recovers like from any other failure, instead of ending its stream.
 */
export const defectFailure = (defect: unknown): ApiFailure => ({
  reason: "Defect",
  message: `unexpected client failure: ${defect instanceof Error ? defect.message : String(defect)}`,
});
