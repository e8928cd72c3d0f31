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

/** One decoded JSON line as zero or one events. */
export const decodeEvent = (value: unknown): Effect.Effect<ReadonlyArray<WatchEvent>, KubeApiError> => {
  const event = value as { type?: unknown; object?: unknown } | null;
  if (typeof event !== "object" || event === null || typeof event.type !== "string") {
    return Effect.fail(KubeApiError.transport("A watch event without a type in the watch stream."));
  }
  if (!eventTypes.has(event.type)) {
    return Effect.logWarning(`Ignoring an unsupported watch event type: ${event.type}`).pipe(Effect.as([]));
  }
  const object = (typeof event.object === "object" && event.object !== null ? event.object : {}) as RawBody;
  return Effect.succeed([{ type: event.type as RawEventType, object }]);
};

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
      const events = JsonLines.values(response.body).pipe(
        Stream.mapEffect(decodeEvent),
        Stream.flattenIterable,
      );
      const clientTimeout = millis(watching.clientTimeout);
      return clientTimeout === undefined
        ? events
        : events.pipe(Stream.interruptWhen(Effect.sleep(clientTimeout)));
    }),
  );
