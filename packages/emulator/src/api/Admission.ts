/**
 * The admission contract between the API core and whatever calls admission webhooks: the core asks
 * the hook on every create, update, delete and connect (subresources included), after decoding and
 * defaulting and before validation and storage — mutating first (the core applies the returned JSON
 * patches), then validating. The default hook admits everything.
 */
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as JsonPatch from "./JsonPatch.ts";
import type { Status } from "./Status.ts";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The user a request is made as (admission `userInfo`). */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: ReadonlyArray<string>;
}

/** What AdmissionReview.request carries, minus the uid the hook makes per call. */
export interface AdmissionRequest {
  readonly operation: AdmissionOperation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  readonly requestKind: GroupVersionKind;
  readonly requestResource: GroupVersionResource;
  readonly requestSubResource: string;
  readonly name: string;
  readonly namespace: string;
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly options: unknown;
  readonly dryRun: boolean;
  readonly userInfo: UserInfo;
  /** Whether the resource is namespaced (for namespaceSelector matching). */
  readonly namespaced: boolean;
}

/** Read-only access to stored objects (webhook configurations, namespace labels…). */
export interface StoreReader {
  readonly get: (group: string, resource: string, namespace: string, name: string) => unknown;
  readonly list: (group: string, resource: string, namespace?: string) => ReadonlyArray<unknown>;
  readonly namespaceLabels: (namespace: string) => Readonly<Record<string, string>> | undefined;
}

export type AdmissionDecision =
  | {
      readonly _tag: "Allow";
      /** JSON patches to apply in order (mutating only). */
      readonly patches: ReadonlyArray<JsonPatch.Operation>;
      readonly warnings: ReadonlyArray<string>;
    }
  | {
      readonly _tag: "Deny";
      readonly status: Status;
      /** The warnings given before (or with) the denial; the client gets them with the failure. */
      readonly warnings?: ReadonlyArray<string>;
    };

export const allow: AdmissionDecision = { _tag: "Allow", patches: [], warnings: [] };

export interface AdmissionHookShape {
  readonly mutate: (request: AdmissionRequest, store: StoreReader) => Effect.Effect<AdmissionDecision>;
  readonly validate: (request: AdmissionRequest, store: StoreReader) => Effect.Effect<AdmissionDecision>;
}

/**
 * The admission hook the core calls; provide another one to call real webhooks.
 *
 * @example
 * Effect.provideService(AdmissionHook, { mutate: () => Effect.succeed(allow), validate: () => Effect.succeed(allow) })
 */
export const AdmissionHook = Context.Reference<AdmissionHookShape>("@kopf/emulator/AdmissionHook", {
  defaultValue: () => ({ mutate: () => Effect.succeed(allow), validate: () => Effect.succeed(allow) }),
});
