/**
 * The changing cause: why the change-detecting handlers (`on.create/update/delete/resume/field`)
 * are or are not run for one event of one object (docs/behaviour/causes.md#reasons), and the value they are selected
 * and invoked with.
 *
 * Detection is a pure, total function of the event type, the body, the finalizer name, the
 * stored essence (`old`), the essence diff and the `initial` flag; it never throws, whatever the
 * body contains.
 */
import { type HandlerCause, HandlerContext, type Reason } from "@kopf/registry";
import { type Diff, Finalizers, type RawBody, type RawEventType } from "@kopf/structs";
import type { CauseInputs } from "./CauseInputs.ts";
import type { ResourceContext } from "./ResourceCause.ts";

/** What reason detection looks at (Kopf's `detect_changing_cause` arguments). */
export interface DetectionInput {
  /** The watch event's type; `null` for objects of the initial listing. Unknown types act as `MODIFIED`. */
  readonly type: RawEventType | null;
  /** The object as received (any JSON; malformed metadata is treated as absent). */
  readonly body: unknown;
  /** Our finalizer (`settings.persistence.finalizer`). */
  readonly finalizer: string;
  /** The last-handled essence from the diff-base storage; `null`/`undefined` when none is stored. */
  readonly old: unknown;
  /** The diff between `old` and the current essence. */
  readonly diff: Diff.Diff;
  /** Whether the object was first noticed by the listing and never fully handled since (docs/behaviour/causes.md#resuming). */
  readonly initial: boolean;
}

/** The detected reason with the cause-level flags that go with it. */
export interface Detection {
  readonly reason: Reason;
  /** `initial` as given, except `false` for `create` (creation never mixes with resuming). */
  readonly initial: boolean;
  /** The deletion is ongoing (a `deletionTimestamp` is set): resume handlers skip unless `deleted: true`. */
  readonly deleted: boolean;
}

/**
 * Derives the reason of a changing cause; the first matching rule wins:
 * `DELETED` ⇒ `gone`; deleting without our finalizer ⇒ `free`; deleting ⇒ `delete`;
 * no stored essence ⇒ `create`; no diff and initial ⇒ `resume`; no diff ⇒ `noop`; else `update`.
 *
 * @example
 * ```ts
 * import { ChangeCause } from "@kopf/causes";
 * ChangeCause.detectReason({
 *   type: "MODIFIED",
 *   body: { metadata: { deletionTimestamp: "2020-01-01T00:00:00Z", finalizers: ["fin"] } },
 *   finalizer: "fin",
 *   old: null,
 *   diff: [],
 *   initial: false,
 * }); // { reason: "delete", initial: false, deleted: true }
 * ```
 */
export const detectReason = (input: DetectionInput): Detection => {
  // The structs accessors read any value as a body: malformed metadata counts as absent.
  const body = input.body as RawBody;
  const deleted = Finalizers.isDeletionOngoing(body);
  const initial = input.initial;
  if (input.type === "DELETED") return { reason: "gone", initial, deleted };
  if (deleted && !Finalizers.isDeletionBlocked(body, input.finalizer))
    return { reason: "free", initial, deleted };
  if (deleted) return { reason: "delete", initial, deleted };
  if (input.old === null || input.old === undefined) return { reason: "create", initial: false, deleted };
  if (input.diff.length === 0 && initial) return { reason: "resume", initial, deleted };
  if (input.diff.length === 0) return { reason: "noop", initial, deleted };
  return { reason: "update", initial, deleted };
};

/**
 * The changing cause as handlers are selected (the registry's matching input) and invoked with
 * it (Kopf's `ChangingCause`): `reason`, `initial`, `diff`, and the essences (docs/behaviour/causes.md#essence) `old`/`new`,
 * plus `deleted` for convenience (the body has a `deletionTimestamp`).
 */
export interface ChangeCause extends HandlerCause.ChangingCause {
  readonly deleted: boolean;
}

/**
 * Detects the reason for prepared inputs (docs/behaviour/causes.md#inputs) and builds the cause with the object's context.
 *
 * @example
 * ```ts
 * import { CauseInputs, ChangeCause } from "@kopf/causes";
 * declare const inputs: CauseInputs.CauseInputs;
 * declare const context: ResourceCause.ResourceContext;
 * const cause = ChangeCause.make(inputs, context);
 * if (cause.reason === "create") { … }
 * ```
 */
export const make = (inputs: CauseInputs, context: ResourceContext): ChangeCause => {
  const detection = detectReason(inputs);
  return {
    ...context,
    _tag: "ChangingCause",
    body: inputs.body,
    reason: detection.reason,
    initial: detection.initial,
    deleted: detection.deleted,
    diff: inputs.diff,
    old: inputs.old,
    new: inputs.new,
  };
};

/** Whether a reason runs handlers (`create`, `update`, `delete`, `resume`) rather than only being logged. */
export const isHandlerReason = (reason: Reason): boolean => HandlerContext.HANDLER_REASONS.includes(reason);

const TITLES: Readonly<Record<Reason, string>> = {
  create: "creation",
  update: "updating",
  delete: "deletion",
  resume: "resuming",
  noop: "noop",
  free: "free",
  gone: "gone",
};

/**
 * The noun Kopf uses for a reason in its log lines (`create` ⇒ `creation`, `update` ⇒
 * `updating`, `delete` ⇒ `deletion`, `resume` ⇒ `resuming`), e.g. "Creation is processed: …".
 */
export const title = (reason: Reason): string => TITLES[reason];

const REACTOR_MESSAGES: Readonly<Partial<Record<Reason, string>>> = {
  gone: "Deleted, really deleted, and we are notified.",
  free: "Deletion, but we are done with it, and we do not care.",
  noop: "Something has changed, but we are not interested (the essence is the same).",
};

/** The line Kopf logs for a reason that runs no handlers (`gone`, `free`, `noop`); `undefined` otherwise. */
export const reactorMessage = (reason: Reason): string | undefined => REACTOR_MESSAGES[reason];
