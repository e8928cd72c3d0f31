/**
 * One watch request as a `Stream` of events: the query (bookmarks on by default, the server
 * timeout from the settings), the connect timeout of watches, JSON-lines decoding, unknown
 * event types dropped with a warning, and the client-side total timeout of watch requests.
 */
import { OperatorSettings } from "@kopf/settings";
import type { RawBody, RawEventType } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import type { ApiError, ApiResource, WatchEvent, WatchOptions } from "../KubeApi.ts";
import { KubeApiError } from "../KubeApiError.ts";
import * as JsonLines from "./jsonLines.ts";
import { millis, type Requester } from "./requester.ts";

const eventTypes: ReadonlySet<string> = new Set<RawEventType>([
  "ADDED",
  "MODIFIED",
  "DELETED",
  "BOOKMARK",
  "ERROR",
]);

/**
 * One JSON value of a watch stream as zero or one events: an unknown event type is dropped with a
 * warning; a value that is not an event fails the stream.
 */
const decodeEvent: JsonLines.ValueHandler<WatchEvent> = (value, out, warnings) => {
  const event = value as { type?: unknown; object?: unknown } | null;
  if (typeof event !== "object" || event === null || typeof event.type !== "string") {
    return KubeApiError.transport("A watch event without a type in the watch stream.");
  }
  if (!eventTypes.has(event.type)) {
    warnings.push(`Ignoring an unsupported watch event type: ${event.type}`);
    return undefined;
  }
  const object = (typeof event.object === "object" && event.object !== null ? event.object : {}) as RawBody;
  out.push({ type: event.type as RawEventType, object });
  return undefined;
};

/** One line of a watch stream as zero or one events (a malformed line fails the stream). */
export const decodeEventLine: JsonLines.LineHandler<WatchEvent> = JsonLines.json(decodeEvent);

export const watch = (
  requester: Requester,
  resource: ApiResource,
  options: WatchOptions,
): Stream.Stream<WatchEvent, ApiError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const { watching, networking } = yield* OperatorSettings;
      const path = yield* requester.pathOf(
        resource,
        { namespace: options.namespace },
        {
          watch: "true",
          allowWatchBookmarks: (options.allowWatchBookmarks ?? true) ? "true" : undefined,
          resourceVersion: options.resourceVersion,
          timeoutSeconds: options.timeoutSeconds ?? watching.serverTimeout ?? undefined,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          shardSelector: options.shardSelector,
        },
      );
      const connect =
        millis(watching.connectTimeout) ??
        millis(networking.connectTimeout) ??
        millis(networking.requestTimeout);
      const response = yield* requester.open(path, connect);
      const events = JsonLines.linesWith(response.body, decodeEventLine);
      const clientTimeout = millis(watching.clientTimeout);
      return clientTimeout === undefined
        ? events
        : events.pipe(Stream.interruptWhen(Effect.sleep(clientTimeout)));
    }),
  );
