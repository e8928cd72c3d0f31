/**
 * Builders for the execution tests: the example resource, a logger that records Kopf's lines,
 * changing/watching causes over a body, and a registry to declare handlers in.
 */
import type { ChangingHandler, HandlerCause, Logger } from "@kopf/registry";
import { Registry } from "@kopf/registry";
import { Diff, Patch, type RawBody, Resource } from "@kopf/structs";

export const RESOURCE = Resource.make({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  singular: "kopfexample",
  namespaced: true,
});

export const SPEC = "kopfexamples.kopf.dev";

export interface Line {
  readonly level: "debug" | "info" | "warning" | "error" | "exception";
  readonly message: string;
  readonly error?: unknown;
}

/** A logger keeping every line, and the messages above debug level. */
export const recorder = () => {
  const lines: Array<Line> = [];
  const logger: Logger = {
    debug: (message) => void lines.push({ level: "debug", message }),
    info: (message) => void lines.push({ level: "info", message }),
    warning: (message) => void lines.push({ level: "warning", message }),
    error: (message) => void lines.push({ level: "error", message }),
    exception: (message, error) => void lines.push({ level: "exception", message, error }),
  };
  return {
    logger,
    lines,
    messages: () => lines.filter((l) => l.level !== "debug").map((l) => l.message),
    all: () => lines.map((l) => l.message),
  };
};

export const body = (extra: RawBody = {}): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kopf-example-1", namespace: "default", uid: "uid-1", ...(extra.metadata as object) },
  spec: { field: "value" },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "metadata")),
});

export const changing = (
  overrides: Partial<Omit<HandlerCause.ChangingCause, "_tag">> & { readonly logger: Logger },
): HandlerCause.ChangingCause => {
  const b = overrides.body ?? body();
  return {
    _tag: "ChangingCause",
    resource: RESOURCE,
    body: b,
    patch: overrides.patch ?? Patch.make(b),
    memo: {},
    indices: {},
    reason: "create",
    initial: false,
    diff: Diff.empty,
    old: undefined,
    new: undefined,
    ...overrides,
  };
};

export const watching = (
  overrides: Partial<Omit<HandlerCause.WatchingCause, "_tag">> & { readonly logger: Logger },
): HandlerCause.WatchingCause => {
  const b = overrides.body ?? body();
  return {
    _tag: "WatchingCause",
    resource: RESOURCE,
    body: b,
    patch: overrides.patch ?? Patch.make(b),
    memo: {},
    indices: {},
    type: "ADDED",
    event: { type: "ADDED", object: b },
    ...overrides,
  };
};

/** A fresh registry and its changing handlers after `declare` ran. */
export const changingHandlers = (
  declare: (registry: Registry.Registry) => void,
): ReadonlyArray<ChangingHandler> => {
  const registry = Registry.make();
  declare(registry);
  return registry.changing;
};

/** The body after a cycle's patch, as the next watch event would bring it. */
export const applied = (b: RawBody, patch: Patch.Patch): RawBody =>
  Patch.applyMergePatch(structuredClone(b) as object, patch.toMergePatch()) as RawBody;

/** The progress record of a handler in a patch's annotations (decoded), or what is there. */
export const progressIn = (patch: Patch.Patch, id: string): unknown => {
  const value = (patch.toMergePatch() as any)?.metadata?.annotations?.[
    `kopf.zalando.org/${id.replaceAll("/", ".")}`
  ];
  return typeof value === "string" ? JSON.parse(value) : value;
};
