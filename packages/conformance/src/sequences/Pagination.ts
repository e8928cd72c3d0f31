/** Paginated lists: limit and continue, remaining counts, bad tokens and resourceVersion matching. */
import type { Select, Sequence } from "../Interaction.ts";
import { cms, configMap, continueOf, del, get, namespace, post } from "./internal/steps.ts";

/** Names plus the list's paging metadata (the continue token is normalised to a placeholder). */
const page: Select = (body) => {
  const list = body as {
    items?: ReadonlyArray<{ metadata?: { name?: string } }>;
    metadata?: Record<string, unknown>;
  };
  if (!Array.isArray(list.items)) return body;
  return {
    names: list.items.map((i) => i.metadata?.name),
    continue: list.metadata?.continue,
    remainingItemCount: list.metadata?.remainingItemCount,
  };
};

/**
 * The pagination sequence; the continue tokens are read from the previous responses. Every list
 * selects the sequence's own objects by label, so that objects the control plane adds to the
 * namespace (such as `kube-root-ca.crt`) do not shift the pages.
 */
export const sequence = (run: string): Sequence => {
  const ns = `c-page-${run}`;
  const seven = ["p1", "p2", "p3", "p4", "p5", "p6", "p7"];
  const own = `labelSelector=set%3D${run}`;
  return {
    name: "pagination",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      ...seven.map((name) =>
        post(
          `create-${name}`,
          cms(ns),
          configMap(name, {}, { labels: { set: run, odd: String(Number(name.slice(1)) % 2) } }),
        ),
      ),
      get("limit-3", `${cms(ns)}?${own}&limit=3`, { select: page }),
      get("limit-3-page-2", (e) => `${cms(ns)}?${own}&limit=3&continue=${continueOf(e, "limit-3")}`, {
        select: page,
      }),
      get("limit-3-page-3", (e) => `${cms(ns)}?${own}&limit=3&continue=${continueOf(e, "limit-3-page-2")}`, {
        select: page,
      }),
      get("limit-10", `${cms(ns)}?${own}&limit=10`, { select: page }),
      get("limit-7", `${cms(ns)}?${own}&limit=7`, { select: page }),
      get("limit-0", `${cms(ns)}?${own}&limit=0`, { select: page }),
      get("limit-negative", `${cms(ns)}?${own}&limit=-1`, { select: page }),
      get("limit-selector", `${cms(ns)}?limit=2&labelSelector=set%3D${run}%2Codd%3D1`, { select: page }),
      get(
        "limit-selector-page-2",
        (e) =>
          `${cms(ns)}?limit=2&labelSelector=set%3D${run}%2Codd%3D1&continue=${continueOf(e, "limit-selector")}`,
        { select: page },
      ),
      post("create-between-pages", cms(ns), configMap("p0", {}, { labels: { set: run } })),
      get("limit-3-page-2-again", (e) => `${cms(ns)}?${own}&limit=3&continue=${continueOf(e, "limit-3")}`, {
        select: page,
      }),
      get("bad-continue", `${cms(ns)}?${own}&limit=2&continue=notatoken`),
      get("rv-0", `${cms(ns)}?${own}&resourceVersion=0`, { select: page }),
      get("rv-match-without-rv", `${cms(ns)}?resourceVersionMatch=NotOlderThan`),
      get("rv-match-bad", `${cms(ns)}?resourceVersion=1&resourceVersionMatch=Sometimes`),
      get("rv-not-a-number", `${cms(ns)}?resourceVersion=abc`),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};
