/**
 * Kubernetes object bodies as they arrive from the API (`RawBody`), raw watch events, and
 * read-only accessors that treat absent sections as empty and never create keys.
 */
import { isObject, type JsonObject, type JsonValue } from "./Json.ts";

/** A reference from an object to its owner (`metadata.ownerReferences[]`). */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
  readonly [key: string]: JsonValue | undefined;
}

/** A reference to any object, as used in Kubernetes events (`involvedObject`). */
export interface ObjectReference {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly fieldPath?: string;
  readonly [key: string]: JsonValue | undefined;
}

/** `metadata` of an object; every field may be absent. */
export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string | null;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: ReadonlyArray<string>;
  readonly ownerReferences?: ReadonlyArray<OwnerReference>;
  readonly creationTimestamp?: string | null;
  readonly deletionTimestamp?: string | null;
  readonly deletionGracePeriodSeconds?: number | null;
  readonly managedFields?: ReadonlyArray<JsonValue>;
  readonly [key: string]: JsonValue | undefined;
}

/** A Kubernetes object as received from the API: any top-level field besides the usual ones. */
export interface RawBody {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: JsonObject;
  readonly status?: JsonObject;
  readonly [key: string]: JsonValue | undefined;
}

/**
 * Any Kubernetes object as typed code holds it: a body from the API, a kubernetes-fluent-client
 * model instance (`kind.Pod`), or an interface of one's own custom resource. Only the identity
 * fields are described and no index signature is required, so each of these is accepted as it
 * is, without a cast, wherever the framework only reads who an object is.
 *
 * @example
 * ```ts
 * const pod: KubeObject = new kind.Pod(); // kubernetes-fluent-client
 * const mine: KubeObject = { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "ex" } };
 * ```
 */
export interface KubeObject {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?:
    | {
        readonly name?: string | undefined;
        readonly namespace?: string | null | undefined;
        readonly uid?: string | undefined;
        readonly labels?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
}

/**
 * A body being transformed in place, as patch functions receive it (a private deep copy, so
 * mutating it is safe).
 */
export interface MutableBody {
  apiVersion?: string;
  kind?: string;
  metadata?: { [key: string]: any };
  spec?: { [key: string]: any };
  status?: { [key: string]: any };
  [key: string]: any;
}

/** The type of a watch event. */
export type RawEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** A watch event; `type` is `null` for an object of the initial listing. */
export interface RawEvent {
  readonly type: RawEventType | null;
  readonly object: RawBody;
}

const EMPTY: JsonObject = Object.freeze({});
const EMPTY_LIST: ReadonlyArray<string> = Object.freeze([]);
const section = (obj: unknown, key: string): JsonObject => {
  if (!isObject(obj) || !Object.hasOwn(obj, key)) return EMPTY;
  const value = obj[key];
  return isObject(value) ? (value as JsonObject) : EMPTY;
};

const text = (obj: unknown, key: string): string | undefined => {
  if (!isObject(obj) || !Object.hasOwn(obj, key)) return undefined;
  const value = obj[key];
  return typeof value === "string" ? value : undefined;
};

/**
 * The body's `metadata`, or a frozen `{}` when absent.
 *
 * @example
 * meta({ metadata: { name: "x" } }).name // "x"
 */
export const meta = (body: RawBody): ObjectMeta => section(body, "metadata") as ObjectMeta;

/**
 * The body's `spec`, or a frozen `{}` when absent.
 *
 * @example
 * spec({ spec: { replicas: 3 } }).replicas // 3
 */
export const spec = (body: RawBody): JsonObject => section(body, "spec");

/**
 * The body's `status`, or a frozen `{}` when absent.
 *
 * @example
 * status({}) // {}
 */
export const status = (body: RawBody): JsonObject => section(body, "status");

/**
 * `metadata.labels`, or a frozen `{}` when absent.
 *
 * @example
 * labels({ metadata: { labels: { app: "web" } } }).app // "web"
 */
export const labels = (body: RawBody): Readonly<Record<string, string>> =>
  section(meta(body), "labels") as Readonly<Record<string, string>>;

/**
 * `metadata.annotations`, or a frozen `{}` when absent.
 *
 * @example
 * annotations({ metadata: { annotations: { a: "b" } } }).a // "b"
 */
export const annotations = (body: RawBody): Readonly<Record<string, string>> =>
  section(meta(body), "annotations") as Readonly<Record<string, string>>;

/**
 * `metadata.uid`, or `undefined` when absent or null.
 *
 * @example
 * uid({ metadata: { uid: "123" } }) // "123"
 */
export const uid = (body: RawBody): string | undefined => text(meta(body), "uid");

/**
 * `metadata.name`, or `undefined` when absent or null.
 *
 * @example
 * name({ metadata: { name: "kex1" } }) // "kex1"
 */
export const name = (body: RawBody): string | undefined => text(meta(body), "name");

/**
 * `metadata.namespace`, or `undefined` when absent or null (cluster-scoped objects).
 *
 * @example
 * namespace({ metadata: { name: "node1" } }) // undefined
 */
export const namespace = (body: RawBody): string | undefined => text(meta(body), "namespace");

/**
 * `metadata.resourceVersion`, or `undefined` when absent or null.
 *
 * @example
 * resourceVersion({ metadata: { resourceVersion: "42" } }) // "42"
 */
export const resourceVersion = (body: RawBody): string | undefined => text(meta(body), "resourceVersion");

/**
 * `metadata.creationTimestamp`, or `undefined` when absent or null.
 *
 * @example
 * creationTimestamp({ metadata: { creationTimestamp: "2020-01-01T00:00:00Z" } }) // "2020-01-01T00:00:00Z"
 */
export const creationTimestamp = (body: RawBody): string | undefined => text(meta(body), "creationTimestamp");

/**
 * `metadata.deletionTimestamp`, or `undefined` when absent or null.
 *
 * @example
 * deletionTimestamp({ metadata: { deletionTimestamp: "2020-01-01T00:00:00Z" } }) // "2020-01-01T00:00:00Z"
 */
export const deletionTimestamp = (body: RawBody): string | undefined => text(meta(body), "deletionTimestamp");

/**
 * `metadata.finalizers`, or a frozen `[]` when absent (non-string entries are skipped).
 *
 * @example
 * finalizers({ metadata: { finalizers: ["a"] } }) // ["a"]
 */
export const finalizers = (body: RawBody): ReadonlyArray<string> => {
  const value = meta(body).finalizers;
  if (!Array.isArray(value)) return EMPTY_LIST;
  return value.filter((f): f is string => typeof f === "string");
};
