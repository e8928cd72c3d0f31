/** The state every request handler works on, and small response helpers shared by the handlers. */
import type * as Clock from "effect/Clock";
import type { AdmissionHookShape, StoreReader } from "../Admission.ts";
import type { ApiResponse } from "../Emulator.ts";
import type { ResourceType } from "../ResourceType.ts";
import type { GroupResource, Status as StatusBody } from "../Status.ts";
import type { Store, Table } from "../Store.ts";
import * as Warnings from "../Warnings.ts";
import { encode, type JsonObject } from "./Json.ts";

export interface Core {
  readonly store: Store;
  readonly clock: Clock.Clock;
  /** Epoch milliseconds from the layer's Clock. */
  readonly now: () => number;
  /** A number in [0, 1) from the layer's Random. */
  readonly random: () => number;
  readonly admission: AdmissionHookShape;
  readonly reader: StoreReader;
  readonly bookmarkIntervalMillis: number;
  readonly defaultWatchTimeoutSeconds: number;
  /** kube-apiserver's `ShardedListAndWatch` feature gate: `shardSelector` on lists and watches. */
  readonly shardedListAndWatch: boolean;
  /** Runs after a stored change, e.g. to register a CRD's resource. */
  readonly afterChange: (table: Table, object: JsonObject, deleted: boolean) => void;
}

/** A request resolved to a resource type (and maybe a namespace, an object and a subresource). */
export interface Resolved {
  readonly type: ResourceType;
  readonly table: Table;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly gr: GroupResource;
}

/** What a handler answers: the core's `ApiResponse`. */
export type Response = ApiResponse;

export const JSON_HEADERS = { "content-type": "application/json" } as const;

/** A JSON response; `warnings` are the request's warning texts, sent as kube-apiserver sends them. */
export const json = (status: number, body: unknown, warnings: ReadonlyArray<string> = []): Response => {
  const values = Warnings.headers(warnings);
  return {
    _tag: "Complete",
    status,
    headers: values.length === 0 ? JSON_HEADERS : { ...JSON_HEADERS, warning: values.join(", ") },
    body: encode(body),
  };
};

export const statusResponse = (status: StatusBody, warnings: ReadonlyArray<string> = []): Response =>
  json(status.code, status, warnings);

export const text = (status: number, body: string): Response => ({
  _tag: "Complete",
  status,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body: new TextEncoder().encode(body),
});
