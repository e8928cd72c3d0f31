/**
 * Kubernetes events about objects (Kopf's `post_event`, docs/behaviour/events-and-logs.md#posting-events): the body of a core v1
 * `Event` for an object reference, with Kopf's fields and its 1024-character message limit.
 * Pure: "now" and the settings are arguments; `KubeApi.postEvent` sends it.
 */
import { IsoTime, type ObjectReference } from "@kopf/structs";

/** The longest message posted; longer ones keep their start and end around `...`. */
export const MAX_MESSAGE_LENGTH = 1024;
const INFIX = "...";

/**
 * Shorten a message to {@link MAX_MESSAGE_LENGTH} characters: the first 511, `...`, the last 510.
 *
 * @example
 * ```ts
 * shortenMessage("start" + "x".repeat(2048) + "end").length // 1024
 * ```
 */
export const shortenMessage = (message: string): string => {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  const half = Math.floor(MAX_MESSAGE_LENGTH / 2);
  const prefix = message.slice(0, half - Math.floor(INFIX.length / 2));
  const suffix = message.slice(message.length - (half - (INFIX.length - Math.floor(INFIX.length / 2))));
  return `${prefix}${INFIX}${suffix}`;
};

/** What to say in an event. @category models */
export interface EventSpec {
  /** `Normal`, `Warning`, `Error`, … */
  readonly type: string;
  readonly reason: string;
  readonly message?: string | undefined;
}

/** Where the event comes from and where it goes (from `settings.posting` and the credentials). */
export interface EventContext {
  readonly namePrefix: string;
  readonly reportingComponent: string;
  readonly reportingInstance: string;
  /** Used for cluster-scoped objects: the credentials' default namespace, else `default`. */
  readonly fallbackNamespace: string;
  /** The current time, in epoch milliseconds. */
  readonly now: number;
}

/** Whether events about this object are skipped: core v1 `Event`s (no event explosions). */
export const isSkipped = (ref: ObjectReference): boolean => ref.apiVersion === "v1" && ref.kind === "Event";

/**
 * The body of a core v1 Event about `ref`, and the namespace to post it to.
 *
 * @example
 * ```ts
 * const { namespace, body } = eventBody({ apiVersion: "v1", kind: "Pod", name: "p", uid: "u", namespace: "ns" },
 *   { type: "Normal", reason: "Created", message: "done" },
 *   { namePrefix: "kopf-event-", reportingComponent: "kopf", reportingInstance: "dev", fallbackNamespace: "default", now: 0 })
 * ```
 */
export const eventBody = (
  ref: ObjectReference,
  spec: EventSpec,
  context: EventContext,
): { readonly namespace: string; readonly body: Record<string, unknown> } => {
  const namespace = ref.namespace || context.fallbackNamespace;
  const involvedObject: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(ref)) if (value) involvedObject[key] = value;
  involvedObject.namespace = namespace;
  const now = IsoTime.format(IsoTime.fromMillis(context.now));
  return {
    namespace,
    body: {
      apiVersion: "v1",
      kind: "Event",
      metadata: { namespace, generateName: context.namePrefix },
      action: "Action?",
      type: spec.type,
      reason: spec.reason,
      message: shortenMessage(spec.message ?? ""),
      reportingComponent: context.reportingComponent,
      reportingInstance: context.reportingInstance,
      source: { component: context.reportingComponent },
      involvedObject,
      firstTimestamp: now,
      lastTimestamp: now,
      eventTime: now,
    },
  };
};
