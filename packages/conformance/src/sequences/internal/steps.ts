/** Small constructors for the sequences' steps, so that each sequence reads as a script. */
import type {
  CollectStep,
  Dynamic,
  Earlier,
  Method,
  PollStep,
  RequestStep,
  Select,
  WatchStep,
} from "../../Interaction.ts";

export const MERGE = "application/merge-patch+json";
export const JSON_PATCH = "application/json-patch+json";
export const STRATEGIC = "application/strategic-merge-patch+json";
export const APPLY = "application/apply-patch+yaml";

interface Extra {
  readonly select?: Select;
  readonly bodyFrom?: (earlier: Earlier) => unknown;
  readonly contentType?: string;
  readonly rawBody?: string;
  readonly accept?: string;
}

const request = (
  name: string,
  method: Method,
  path: Dynamic<string>,
  body?: unknown,
  extra: Extra = {},
): RequestStep => ({
  kind: "request",
  name,
  method,
  path,
  ...(body === undefined ? {} : { body }),
  ...extra,
});

export const get = (name: string, path: Dynamic<string>, extra?: Extra) =>
  request(name, "GET", path, undefined, extra);
export const post = (name: string, path: string, body: unknown, extra?: Extra) =>
  request(name, "POST", path, body, extra);
export const put = (name: string, path: Dynamic<string>, body: unknown, extra?: Extra) =>
  request(name, "PUT", path, body, extra);
export const del = (name: string, path: Dynamic<string>, body?: unknown, extra?: Extra) =>
  request(name, "DELETE", path, body, extra);
export const patch = (
  name: string,
  path: Dynamic<string>,
  contentType: string,
  body: unknown,
  extra?: Extra,
) => request(name, "PATCH", path, body, { ...extra, contentType });
/** A request with a body sent verbatim (malformed or oversized input). */
export const raw = (
  name: string,
  method: Method,
  path: string,
  rawBody: string,
  contentType = "application/json",
) => request(name, method, path, undefined, { rawBody, contentType });

export const watch = (name: string, id: string, path: Dynamic<string>, accept?: string): WatchStep => ({
  kind: "watch",
  name,
  id,
  path,
  ...(accept === undefined ? {} : { accept }),
});
export const collect = (
  name: string,
  id: string,
  events: number,
  timeoutMs = 5_000,
  select?: Select,
): CollectStep => ({
  kind: "collect",
  name,
  id,
  events,
  timeoutMs,
  ...(select === undefined ? {} : { select }),
});
export const poll = (
  name: string,
  path: string,
  until: (status: number, body: unknown) => boolean,
  timeoutMs = 30_000,
  request: { readonly method?: Method; readonly body?: unknown; readonly select?: Select } = {},
): PollStep => ({ kind: "poll", name, path, until, timeoutMs, ...request });

/** Until a CRD is `Established`. */
export const established = (_status: number, body: unknown): boolean =>
  (
    (body as { status?: { conditions?: ReadonlyArray<{ type: string; status: string }> } }).status
      ?.conditions ?? []
  ).some((c) => c.type === "Established" && c.status === "True");

/** Until the object is gone. */
export const gone = (status: number) => status === 404;

/** A namespace object. */
export const namespace = (name: string, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
});

/** A ConfigMap object. */
export const configMap = (
  name: string,
  data: Record<string, string> = { key: "value" },
  metadata: Record<string, unknown> = {},
) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...metadata }, data });

/** Path of the ConfigMaps of a namespace (or one of them). */
export const cms = (ns: string, name?: string) =>
  `/api/v1/namespaces/${ns}/configmaps${name === undefined ? "" : `/${name}`}`;

/**
 * Objects the control plane itself puts into every namespace (kube-controller-manager's
 * root-CA publisher), which appear a moment after the namespace, on both servers.
 */
export const SYSTEM_OBJECTS: ReadonlySet<string> = new Set(["kube-root-ca.crt"]);

/**
 * Keeps only the names of a list's items (for list comparisons that are about membership),
 * without the control plane's own objects.
 */
export const names: Select = (body) => {
  const items = (body as { items?: ReadonlyArray<{ metadata?: { name?: string } }> }).items;
  return Array.isArray(items)
    ? { names: items.map((i) => i.metadata?.name).filter((n) => n === undefined || !SYSTEM_OBJECTS.has(n)) }
    : body;
};

/** Keeps the listed keys of an object body (top level). */
export const pick =
  (...keys: ReadonlyArray<string>): Select =>
  (body) =>
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? Object.fromEntries(keys.map((k) => [k, (body as Record<string, unknown>)[k]]))
      : body;

/** Keeps, from watch events, their types and objects' names (and the bookmark annotation). */
export const eventSummary: Select = (body) =>
  Array.isArray(body)
    ? body.map(
        (e: {
          type?: string;
          object?: { metadata?: { name?: string; annotations?: Record<string, string> } };
        }) =>
          e.type === "BOOKMARK"
            ? {
                type: e.type,
                initialEventsEnd: e.object?.metadata?.annotations?.["k8s.io/initial-events-end"],
              }
            : { type: e.type, name: e.object?.metadata?.name },
      )
    : body;

const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>(
    (at, key) => (typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined),
    value,
  );

/** The resourceVersion of an earlier step's object (or list), "" if it has none. */
export const rvOf = (earlier: Earlier, step: string): string =>
  String(field(earlier(step), "metadata", "resourceVersion") ?? "");

/** The continue token of an earlier list step, "" if it has none. */
export const continueOf = (earlier: Earlier, step: string): string =>
  encodeURIComponent(String(field(earlier(step), "metadata", "continue") ?? ""));

/** The uid of an earlier step's object. */
export const uidOf = (earlier: Earlier, step: string): string =>
  String(field(earlier(step), "metadata", "uid") ?? "");
