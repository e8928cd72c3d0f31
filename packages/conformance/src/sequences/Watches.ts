/**
 * Watches (of the sequence's own objects, all labelled `app`, so that objects the control plane
 * adds to the namespace stay out): from a resourceVersion, with label and field selectors (objects leaving a selector
 * arrive as DELETED), initial ADDED events without a version, the initial-events bookmark of
 * `sendInitialEvents`, expired versions (an ERROR event with 410), bad parameters and timeouts.
 */
import type { Sequence } from "../Interaction.ts";
import {
  cms,
  collect,
  configMap,
  del,
  eventSummary,
  get,
  MERGE,
  namespace,
  patch,
  poll,
  post,
  rvOf,
  watch,
} from "./internal/steps.ts";

/** The watches sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-watch-${run}`;
  const from =
    (step: string, query = "") =>
    (e: (s: string) => unknown) =>
      `${cms(ns)}?resourceVersion=${rvOf(e, step)}${query === "" ? "" : `&${query}`}`;
  return {
    name: "watches",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("create-first", cms(ns), configMap("first", {}, { labels: { app: "a" } })),
      watch("watch-all", "all", from("create-first", "labelSelector=app")),
      watch("watch-selected", "selected", from("create-first", "labelSelector=app%3Da")),
      watch("watch-named", "named", from("create-first", "fieldSelector=metadata.name%3Dsecond")),
      post("create-second", cms(ns), configMap("second", {}, { labels: { app: "a" } })),
      patch("update-first", cms(ns, "first"), MERGE, { data: { k: "v" } }),
      patch("relabel-second", cms(ns, "second"), MERGE, { metadata: { labels: { app: "b" } } }),
      patch("relabel-second-back", cms(ns, "second"), MERGE, { metadata: { labels: { app: "a" } } }),
      del("delete-first", cms(ns, "first")),
      collect("events-all", "all", 5),
      collect("events-selected", "selected", 5),
      collect("events-named", "named", 3),
      watch("watch-no-version", "initial", `${cms(ns)}?labelSelector=app`),
      collect("events-initial", "initial", 1, 3_000, eventSummary),
      watch("watch-rv-0", "rv0", `${cms(ns)}?labelSelector=app&resourceVersion=0`),
      collect("events-rv-0", "rv0", 1, 3_000, eventSummary),
      post("create-third", cms(ns), configMap("third", {}, { labels: { app: "c" } })),
      watch(
        "watch-initial-events",
        "stream",
        (e) =>
          `${cms(ns)}?labelSelector=app&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rvOf(e, "create-third")}`,
      ),
      collect("events-initial-events", "stream", 3, 5_000, eventSummary),
      watch(
        "watch-initial-events-bad",
        "badstream",
        `${cms(ns)}?sendInitialEvents=true&resourceVersionMatch=Exact`,
      ),
      collect("events-initial-events-bad", "badstream", 1, 3_000),
      poll(
        "compacted",
        `${cms(ns)}?resourceVersion=1&resourceVersionMatch=Exact`,
        (status) => status === 410,
        40_000,
      ),
      watch("watch-expired", "expired", `${cms(ns)}?labelSelector=app&resourceVersion=1`),
      collect("events-expired", "expired", 1, 5_000),
      watch("watch-bad-version", "bad", `${cms(ns)}?resourceVersion=abc`),
      collect("events-bad-version", "bad", 1, 3_000),
      watch("watch-bad-selector", "badsel", `${cms(ns)}?labelSelector=a%3D%3D%3Db`),
      collect("events-bad-selector", "badsel", 1, 3_000),
      watch(
        "watch-timeout",
        "timeout",
        (e) => `${cms(ns)}?timeoutSeconds=1&resourceVersion=${rvOf(e, "create-third")}`,
      ),
      collect("events-timeout", "timeout", 99, 4_000),
      watch(
        "watch-single",
        "single",
        (e) => `${cms(ns)}?fieldSelector=metadata.name%3Dthird&resourceVersion=${rvOf(e, "create-third")}`,
      ),
      patch("update-third", cms(ns, "third"), MERGE, { data: { x: "1" } }),
      del("delete-third", cms(ns, "third")),
      collect("events-single", "single", 2),
      watch(
        "watch-missing-namespace",
        "nons",
        `/api/v1/namespaces/c-none-${run}/configmaps?resourceVersion=0`,
      ),
      collect("events-missing-namespace", "nons", 1, 2_000),
      get("list-final", `${cms(ns)}?labelSelector=app`, {
        select: (b) => ({ count: (b as { items?: unknown[] }).items?.length }),
      }),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};
