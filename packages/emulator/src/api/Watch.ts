/**
 * Watch streams: JSON lines of ADDED/MODIFIED/DELETED events from a resourceVersion (unset or "0":
 * the current state first), BOOKMARK events on a Clock-driven interval when allowed, selectors
 * applied per event (leaving a selector reads as DELETED, entering as ADDED), `sendInitialEvents`,
 * `timeoutSeconds`, and the 410 "too old resource version" ERROR event.
 */
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Queue from "effect/Queue";
import * as Result from "effect/Result";
import * as Stream from "effect/Stream";
import type { Core, Resolved, Response } from "./internal/Core.ts";
import { encodeText, type JsonObject, storedJson } from "./internal/Json.ts";
import * as ObjectMeta from "./ObjectMeta.ts";
import * as Reads from "./Reads.ts";
import { apiVersionOf } from "./ResourceType.ts";
import type { Status } from "./Status.ts";
import * as StatusErrors from "./Status.ts";
import { namespaceOf, type StoredEvent, type Watcher } from "./Store.ts";
import * as Tables from "./Tables.ts";

export interface WatchOptions {
  readonly selection: Reads.Selection;
  /** The resourceVersion to start after; undefined for "current state first". */
  readonly fromRv: number | undefined;
  readonly sendInitialEvents: boolean;
  readonly bookmarks: boolean;
  readonly timeoutSeconds: number;
  /**
   * Objects as meta.k8s.io Tables (the request asked for them), with `includeObject` for the
   * rows; column definitions go with the first event only.
   */
  readonly table?: { readonly includeObject: string } | undefined;
}

const line = (type: string, object: unknown): Uint8Array =>
  encodeText(`${JSON.stringify({ type, object })}\n`);

/** {@link line} of a stored object, whose text the write's response reuses. */
const storedLine = (type: string, object: JsonObject): Uint8Array =>
  encodeText(`{"type":"${type}","object":${storedJson(object)}}\n`);

/**
 * Encoded lines by stored event and by what decides the line (the event type a watcher sees, which
 * fixes the object it gets, and the served type and version): every watcher of a table gets the
 * same bytes, so an event is served and serialised once, not once per watcher. Kept as long as the
 * event is (in the table's bounded history).
 */
const encodedLines = new WeakMap<StoredEvent, Map<string, Uint8Array>>();

const sharedLine = (
  event: StoredEvent,
  type: string,
  servedAs: string,
  serve: () => JsonObject,
): Uint8Array => {
  let lines = encodedLines.get(event);
  if (lines === undefined) {
    lines = new Map();
    encodedLines.set(event, lines);
  }
  const key = `${type} ${servedAs}`;
  let bytes = lines.get(key);
  if (bytes === undefined) {
    const served = serve();
    bytes = served === event.object ? storedLine(type, served) : line(type, served);
    lines.set(key, bytes);
  }
  return bytes;
};

/** What a watcher sees of a stored event, given its namespace and selectors. */
export const visibleEvent = (
  event: StoredEvent,
  namespace: string | undefined,
  selection: Reads.Selection,
): { readonly type: string; readonly object: JsonObject } | undefined => {
  if (namespace !== undefined && namespaceOf(event.object) !== namespace) return undefined;
  const now = Reads.matches(selection, event.object);
  if (event.type === "ADDED") return now ? { type: "ADDED", object: event.object } : undefined;
  if (event.type === "DELETED") {
    const before = event.previous === undefined ? now : Reads.matches(selection, event.previous);
    return before ? { type: "DELETED", object: event.object } : undefined;
  }
  const before = event.previous === undefined ? false : Reads.matches(selection, event.previous);
  if (now && before) return { type: "MODIFIED", object: event.object };
  if (now) return { type: "ADDED", object: event.object };
  if (before && event.previous !== undefined)
    return {
      type: "DELETED",
      object: {
        ...event.previous,
        metadata: { ...(event.previous.metadata as JsonObject), resourceVersion: String(event.rv) },
      },
    };
  return undefined;
};

const bookmark = (resolved: Resolved, rv: number, annotations?: Record<string, string>): JsonObject => ({
  kind: resolved.type.kind,
  apiVersion: apiVersionOf(resolved.type.group, resolved.version),
  metadata: {
    resourceVersion: String(rv),
    ...(annotations === undefined ? {} : { annotations }),
  },
});

const tooOld = (rv: number, oldest: number): Status =>
  StatusErrors.make(410, "Expired", `too old resource version: ${rv} (${oldest})`).status;

/** Opens a watch; the stream ends on timeout, on `dropWatches`, or when the resource goes away. */
export const open = (core: Core, resolved: Resolved, options: WatchOptions): Response => {
  const { table } = resolved;
  const store = core.store;
  let headersSent = false;
  const servedAs = `${resolved.type.group}/${resolved.type.plural}/${resolved.version}`;
  /** The line of an event (shared with the table's other watchers unless it is a Table row). */
  const eventLine = (event: StoredEvent, type: string, o: JsonObject): Uint8Array =>
    options.table === undefined ? sharedLine(event, type, servedAs, () => serve(o)) : line(type, serve(o));
  const serve = (o: JsonObject): JsonObject => {
    const served = ObjectMeta.serve(resolved.type, resolved.version, o);
    if (options.table === undefined) return served;
    const meta = { resourceVersion: (served.metadata as JsonObject | undefined)?.resourceVersion };
    const headers = !headersSent;
    headersSent = true;
    return Tables.table(resolved.type, [served], meta, core.now(), options.table.includeObject, headers);
  };
  const body = Stream.callback<Uint8Array>((queue) =>
    Effect.gen(function* () {
      const offer = (bytes: Uint8Array) => Queue.offerUnsafe(queue, bytes);
      const end = () => Queue.endUnsafe(queue);
      const from = options.fromRv;
      if (from !== undefined && from < table.compactedRv) {
        offer(line("ERROR", tooOld(from, table.compactedRv + 1)));
        end();
        return;
      }
      if (from === undefined || options.sendInitialEvents) {
        for (const obj of table.list(resolved.namespace))
          if (Reads.matches(options.selection, obj)) offer(line("ADDED", serve(obj)));
        if (options.sendInitialEvents && options.bookmarks)
          offer(
            line(
              "BOOKMARK",
              bookmark(resolved, table.history.at(-1)?.rv ?? table.compactedRv, {
                "k8s.io/initial-events-end": "true",
              }),
            ),
          );
      } else {
        const history = table.history;
        for (let i = table.firstAfter(from); i < history.length; i++) {
          const e = history[i] as StoredEvent;
          const v = visibleEvent(e, resolved.namespace, options.selection);
          if (v !== undefined) offer(eventLine(e, v.type, v.object));
        }
      }
      const watcher: Watcher = {
        deliver: (event) => {
          const v = visibleEvent(event, resolved.namespace, options.selection);
          if (v !== undefined) offer(eventLine(event, v.type, v.object));
        },
        end,
      };
      table.watchers.add(watcher);
      yield* Effect.addFinalizer(() => Effect.sync(() => table.watchers.delete(watcher)));
      if (
        !store.tables.has(`${resolved.type.group}/${resolved.type.plural}`) ||
        store.tables.get(`${resolved.type.group}/${resolved.type.plural}`) !== table
      )
        end();
      if (options.bookmarks && core.bookmarkIntervalMillis > 0)
        yield* Effect.forkScoped(
          Effect.forever(
            Effect.sleep(core.bookmarkIntervalMillis).pipe(
              Effect.andThen(Effect.sync(() => offer(line("BOOKMARK", bookmark(resolved, store.rv))))),
            ),
          ),
        );
      yield* Effect.forkScoped(
        Effect.sleep(options.timeoutSeconds * 1000).pipe(Effect.andThen(Effect.sync(end))),
      );
    }).pipe(Effect.provideService(Clock.Clock, core.clock)),
  );
  return {
    _tag: "Streaming",
    status: 200,
    headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    body,
  };
};

/**
 * A watch request's options from its query (selection, start, initial events, bookmarks, timeout)
 * and Accept header (Tables), or the error kube-apiserver answers for bad ones.
 *
 * @example
 * ```ts
 * const options = yield* Effect.fromResult(Watch.options(core, resolved, request.query, request.headers.accept));
 * ```
 */
export const options = (
  core: Core,
  resolved: Resolved,
  query: URLSearchParams,
  accept: string | undefined,
): Result.Result<WatchOptions, StatusErrors.ApiError> => {
  const selection = Reads.parseSelection(resolved, query, core.shardedListAndWatch);
  if (Result.isFailure(selection)) return Result.fail(selection.failure);
  const rvRaw = query.get("resourceVersion") ?? "";
  const sendInitial = query.get("sendInitialEvents") === "true";
  const bookmarks = query.get("allowWatchBookmarks") === "true";
  if (sendInitial && (query.get("resourceVersionMatch") !== "NotOlderThan" || !bookmarks))
    return Result.fail(
      StatusErrors.invalid("meta.k8s.io", "ListOptions", "", [
        {
          type: "FieldValueForbidden",
          field: "sendInitialEvents",
          detail: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        },
      ]),
    );
  let fromRv: number | undefined;
  if (rvRaw !== "" && rvRaw !== "0") {
    if (!/^[0-9]+$/.test(rvRaw))
      return Result.fail(
        StatusErrors.badRequest(`resourceVersion: Invalid value: "${rvRaw}": must be a non-negative integer`),
      );
    fromRv = Number(rvRaw);
  }
  const timeoutRaw = query.get("timeoutSeconds");
  const timeout =
    timeoutRaw === null || timeoutRaw === "" ? core.defaultWatchTimeoutSeconds : Number(timeoutRaw);
  if (!Number.isFinite(timeout) || timeout < 0)
    return Result.fail(StatusErrors.badRequest(`timeoutSeconds: Invalid value: "${timeoutRaw}"`));
  return Result.succeed({
    selection: selection.success,
    fromRv: sendInitial ? undefined : fromRv,
    sendInitialEvents: sendInitial,
    bookmarks,
    timeoutSeconds: timeout === 0 ? core.defaultWatchTimeoutSeconds : timeout,
    table: Tables.wantsTable(accept)
      ? { includeObject: query.get("includeObject") ?? "Metadata" }
      : undefined,
  });
};
