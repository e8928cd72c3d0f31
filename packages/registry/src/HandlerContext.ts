/**
 * The single argument every handler receives: Kopf's keyword arguments as one context object
 * with camelCase fields, typed per kind of handler (docs/behaviour/handler-context.md#context-fields and the kwargs sets of docs/behaviour/handler-context.md#context-fields), and
 * generic over the body type so a typed kind (e.g. a kubernetes-fluent-client model) flows into
 * `body`, `spec`, `meta` and `status`. Filter callbacks (`when`, value callbacks) receive the
 * same contexts without the invocation fields (`param`, `retry`, `started`, `runtime`,
 * `stopped`), as in Kopf.
 *
 * Also defines the vocabulary shared by handlers and the runtime: `Reason`, `Activity`,
 * `Operation`, the `Logger` the runtime implements, `Memo`, `Index`/`Store` and `DaemonStopped`.
 *
 * Indices are injected under their names and override same-named fields (Kopf's deliberate
 * forward-compatibility rule); declare them with the `I` type parameter.
 */
import type { Body, Diff, Json, Patch, Resource } from "@kopf/structs";
import type * as Effect from "effect/Effect";
import type { SubRegistry } from "./SubRegistry.ts";

/** Why a changing handler runs (`create`…`resume`) or why nothing runs (`noop`, `free`, `gone`). */
export type Reason = "create" | "update" | "delete" | "resume" | "noop" | "free" | "gone";

/** The reasons by name, as in Kopf's `Reason` enum. */
export const Reason = {
  CREATE: "create",
  UPDATE: "update",
  DELETE: "delete",
  RESUME: "resume",
  NOOP: "noop",
  FREE: "free",
  GONE: "gone",
} as const satisfies Record<string, Reason>;

/** The reasons that run handlers. */
export const HANDLER_REASONS: ReadonlyArray<Reason> = ["create", "update", "delete", "resume"];

/** The reasons that are only logged by the reactor. */
export const REACTOR_REASONS: ReadonlyArray<Reason> = ["noop", "free", "gone"];

/** The operator-level activities (`on.login` registers `authentication`). */
export type Activity = "startup" | "cleanup" | "authentication" | "probe";

/** The kind of an admission webhook handler. */
export type WebhookType = "validating" | "mutating";

/** An admission request's operation. */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/**
 * The logger handlers get; the runtime implements it (per object, prefixed, optionally posting
 * Kubernetes events). `args` are appended to the message as structured data.
 *
 * @example
 * const createFn = ({ logger, name }: ChangingContext) => logger.info(`Creating ${name}`)
 */
export interface Logger {
  debug(message: string, ...args: ReadonlyArray<unknown>): void;
  info(message: string, ...args: ReadonlyArray<unknown>): void;
  warning(message: string, ...args: ReadonlyArray<unknown>): void;
  error(message: string, ...args: ReadonlyArray<unknown>): void;
  /** Logs an error together with the failure that caused it (its message and stack). */
  exception(message: string, error?: unknown): void;
}

/**
 * Free-form per-object (or, for activities, per-operator) memory kept by the framework between
 * handler calls; never persisted. Mutate it in place.
 */
export interface Memo {
  [key: string]: unknown;
}

/** The values one index holds under one key: an unordered collection (duplicates allowed). */
export interface Store<V = unknown> extends Iterable<V> {
  readonly size: number;
  has(value: V): boolean;
}

/** A read-only index (`on.index` results): key → the store of values of all objects. */
export interface Index<K = unknown, V = unknown> extends Iterable<readonly [K, Store<V>]> {
  readonly size: number;
  get(key: K): Store<V> | undefined;
  has(key: K): boolean;
  keys(): Iterable<K>;
}

/** Why a daemon or timer is being stopped. */
export type DaemonStoppingReason =
  | "done"
  | "filters-mismatch"
  | "resource-deleted"
  | "operator-exiting"
  | "operator-pausing"
  | "daemon-signalled"
  | "daemon-cancelled"
  | "daemon-abandoned";

/**
 * The platform's `AbortSignal` (Node's or the DOM's), wherever their types are loaded — in
 * operators, always. This package is pure and compiles without either, so it refers to the
 * global through `globalThis` (as `@types/node` does) and falls back to the signal's own members.
 */
type PlatformAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer T } }
  ? T
  : { readonly aborted: boolean; readonly reason: unknown; throwIfAborted(): void };

/**
 * The stop signal of a daemon or timer; the runtime implements it. It is an `AbortSignal`,
 * aborted on the first stop request, so it can be handed to `fetch` and other cancellable APIs;
 * its `reason` is the set of reasons it was stopped for.
 *
 * @example
 * const monitor = async ({ stopped, logger }: DaemonContext) => {
 *   while (!stopped.isSet()) {
 *     const response = await fetch("http://example.com/status", { signal: stopped }).catch(() => null)
 *     logger.info(`status: ${response?.status}`)
 *     await stopped.wait(10)
 *   }
 * }
 */
export type DaemonStopped = Omit<PlatformAbortSignal, "reason"> & {
  /** Whether the stop was requested. */
  isSet(): boolean;
  /** Why the stop was requested, or `undefined` while not requested. */
  readonly reason: ReadonlySet<DaemonStoppingReason> | undefined;
  /** Waits up to `seconds` (forever without it); resolves `true` if the stop was requested. */
  wait(seconds?: number): Promise<boolean>;
  /** The same as `wait`, as an interruptible Effect for Effect handlers. */
  await(seconds?: number): Effect.Effect<boolean>;
};

/** What a handler may return: a value, a promise of one, or an Effect with no requirements. */
export type HandlerReturn = unknown;

/** A `spec`/`status`/`metadata` view of body type `B`: the section, or `{}` when absent. */
export type SectionOf<B, K extends string> = K extends keyof B ? Partial<NonNullable<B[K]>> : Json.JsonObject;

/**
 * Whether `B` is the decoded body of a typed resource (`kopf.resource`): it carries the
 * `~kopf/typed` marker, and its `spec` is exact rather than a partial view.
 */
export type IsTyped<B> = B extends { readonly "~kopf/typed"?: infer M }
  ? [M] extends [true]
    ? true
    : false
  : false;

/** The `spec` of body type `B`: exact for typed resources, a partial view otherwise. */
export type SpecOf<B> =
  IsTyped<B> extends true ? (B extends { readonly spec: infer S } ? S : never) : SectionOf<B, "spec">;

/** A JSON merge patch of `T`: any part of it, `null` to remove a field. */
export type MergePatchOf<T> =
  T extends ReadonlyArray<unknown>
    ? T
    : T extends object
      ? { -readonly [K in keyof T]?: MergePatchOf<T[K]> | null }
      : T;

/** The `patch` of body type `B`: its `spec` and `status` typed for typed resources. */
export type PatchOf<B> =
  IsTyped<B> extends true
    ? Omit<Patch.Patch, "spec" | "status"> & {
        readonly spec: MergePatchOf<B extends { readonly spec: infer S } ? S : never>;
        readonly status: MergePatchOf<NonNullable<B extends { readonly status?: infer S } ? S : never>>;
      }
    : Patch.Patch;

/** The fields derived from the body, shared by all resource handlers. */
export interface BodyFields<B> {
  /** The object as last seen (live for daemons and timers). */
  readonly body: B;
  readonly spec: SpecOf<B>;
  readonly meta: SectionOf<B, "metadata">;
  readonly status: SectionOf<B, "status">;
  readonly uid: string | undefined;
  readonly name: string | undefined;
  /** `undefined` for cluster-scoped objects. */
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** The fields of every resource-level handler and filter. */
export interface ResourceFields<B> extends BodyFields<B> {
  readonly resource: Resource.Resource;
  /** Changes to apply to the object after the handler (never applied for index handlers). */
  readonly patch: PatchOf<B>;
  readonly logger: Logger;
  readonly memo: Memo;
}

/** The fields that exist only while a handler is invoked (not in filter callbacks). */
export interface InvocationFields {
  /** The registration's `param` option (`undefined` when not given). */
  readonly param: unknown;
  /** How many attempts were made before this one (0 on the first). */
  readonly retry: number;
  /** When the first attempt started (UTC), from the persisted state. */
  readonly started: Date;
  /** Milliseconds since `started`. */
  readonly runtime: number;
}

/** Replaces the fields named like indices with the indices (Kopf's override rule). */
export type WithIndices<C, I> = keyof I extends never ? C : Omit<C, keyof I> & I;

/** Filter context of changing handlers (`on.resume/create/update/delete/field`, sub-handlers). */
export interface ChangingFilterContext<B = Body.RawBody> extends ResourceFields<B> {
  readonly reason: Reason;
  /** The diff of essences; re-based on the field for field handlers. */
  readonly diff: Diff.Diff;
  /** The stored essence, or the old field value for field handlers (`undefined` = absent). */
  readonly old: Json.JsonValue | undefined;
  /** The current essence, or the new field value for field handlers (`undefined` = absent). */
  readonly new: Json.JsonValue | undefined;
}

/** Filter context of `on.event` handlers. */
export interface WatchingFilterContext<B = Body.RawBody> extends ResourceFields<B> {
  /** The watch event type; `null` for objects of the initial listing. */
  readonly type: Body.RawEventType | null;
  readonly event: Body.RawEvent;
}

/** Filter context of index handlers. */
export interface IndexingFilterContext<B = Body.RawBody> extends ResourceFields<B> {}

/** Filter context of daemons and timers. */
export interface SpawningFilterContext<B = Body.RawBody> extends ResourceFields<B> {}

/** Filter context of admission webhook handlers (`on.validate`, `on.mutate`). */
export interface WebhookFilterContext<B = Body.RawBody> extends ResourceFields<B> {
  readonly dryrun: boolean;
  /** Append warnings to return them to the API client. */
  readonly warnings: Array<string>;
  /** The subresource of the request (e.g. `"status"`), `undefined` for the main body. */
  readonly subresource: string | undefined;
  readonly userinfo: Readonly<Record<string, unknown>>;
  /** The client certificate's fields; `{}` without one. */
  readonly sslpeer: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly operation: Operation | undefined;
  /** `oldObject` of the request (full body). */
  readonly old: B | undefined;
  /** `object` of the request (full body). */
  readonly new: B | undefined;
  readonly diff: Diff.Diff;
}

/** Filter context of any resource handler. */
export type AnyFilterContext<B = Body.RawBody> =
  | ChangingFilterContext<B>
  | WatchingFilterContext<B>
  | IndexingFilterContext<B>
  | SpawningFilterContext<B>
  | WebhookFilterContext<B>;

/**
 * Context of changing handlers (`on.resume/create/update/delete/field`, sub-handlers); besides
 * Kopf's kwargs it carries `subregistry`, where the handler declares its sub-handlers.
 */
export type ChangingContext<B = Body.RawBody, I = {}> = WithIndices<
  ChangingFilterContext<B> & InvocationFields & { readonly subregistry: SubRegistry },
  I
>;
/** Context of `on.event` handlers (`retry` is always 0). */
export type WatchingContext<B = Body.RawBody, I = {}> = WithIndices<
  WatchingFilterContext<B> & InvocationFields,
  I
>;
/** Context of index handlers. */
export type IndexingContext<B = Body.RawBody, I = {}> = WithIndices<
  IndexingFilterContext<B> & InvocationFields,
  I
>;
/** Context of daemons (the body is live: it follows the object's changes). */
export type DaemonContext<B = Body.RawBody, I = {}> = WithIndices<
  SpawningFilterContext<B> & InvocationFields & { readonly stopped: DaemonStopped },
  I
>;
/** Context of timers (they get `stopped` too, as in Kopf HEAD). */
export type TimerContext<B = Body.RawBody, I = {}> = DaemonContext<B, I>;
/** Context of admission webhook handlers (`retry` is always 0). */
export type WebhookContext<B = Body.RawBody, I = {}> = WithIndices<
  WebhookFilterContext<B> & InvocationFields,
  I
>;
/** Context of the `initialDelay` callback of daemons and timers. */
export type DelayContext<B = Body.RawBody> = SpawningFilterContext<B>;

/** Context of activities (`on.startup/cleanup/login/probe`); `S` is the settings type. */
export type ActivityContext<S = unknown, I = {}> = WithIndices<
  {
    readonly logger: Logger;
    /** The operator-level memo. */
    readonly memo: Memo;
    readonly activity: Activity;
    readonly settings: S;
  } & InvocationFields,
  I
>;
