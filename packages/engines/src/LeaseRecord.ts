/**
 * The coordination.k8s.io/v1 `Lease` as leader election and sharding membership read and write
 * it, in the format client-go's lease lock uses, so `kubectl get lease` and other tools read
 * ours: `holderIdentity`, `leaseDurationSeconds`, `acquireTime`/`renewTime` as MicroTime (UTC,
 * six fractional digits, `Z`) and `leaseTransitions`. An empty `holderIdentity` is a released
 * lease anyone may take.
 */
import { IsoTime, type JsonObject, type RawBody, Resource } from "@kopf/structs";
import * as Result from "effect/Result";

/** The Lease resource (coordination.k8s.io/v1, namespaced). */
export const LEASES: Resource.Resource = Resource.make({
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
  preferred: true,
});

/** What a Lease says about its holder. */
export interface LeaseRecord {
  /** Who holds it; `""` when nobody does (released). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** When the current holder acquired it (epoch microseconds); `undefined` when absent. */
  readonly acquireTime: IsoTime.Micros | undefined;
  /** When the holder last renewed it (epoch microseconds); `undefined` when absent. */
  readonly renewTime: IsoTime.Micros | undefined;
  /** How many times the lease changed holders. */
  readonly leaseTransitions: number;
}

const micros = (value: unknown): IsoTime.Micros | undefined => {
  if (typeof value !== "string") return undefined;
  const parsed = IsoTime.parse(value);
  return Result.isSuccess(parsed) ? parsed.success : undefined;
};

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : 0;

/**
 * Reads the record of a Lease body (missing fields read as empty, as client-go's lock does).
 *
 * @example
 * fromLease({ spec: { holderIdentity: "a", leaseDurationSeconds: 15 } }).holderIdentity // "a"
 */
export const fromLease = (body: RawBody): LeaseRecord => {
  const spec = (body.spec ?? {}) as Record<string, unknown>;
  return {
    holderIdentity: typeof spec.holderIdentity === "string" ? spec.holderIdentity : "",
    leaseDurationSeconds: count(spec.leaseDurationSeconds),
    acquireTime: micros(spec.acquireTime),
    renewTime: micros(spec.renewTime),
    leaseTransitions: count(spec.leaseTransitions),
  };
};

/**
 * The Lease `spec` of a record, with MicroTime timestamps.
 *
 * @example
 * toSpec({ holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: 0, renewTime: 0, leaseTransitions: 0 })
 * // { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "1970-01-01T00:00:00.000000Z", … }
 */
export const toSpec = (record: LeaseRecord): JsonObject => ({
  holderIdentity: record.holderIdentity,
  leaseDurationSeconds: record.leaseDurationSeconds,
  ...(record.acquireTime === undefined ? {} : { acquireTime: IsoTime.formatMicroTime(record.acquireTime) }),
  ...(record.renewTime === undefined ? {} : { renewTime: IsoTime.formatMicroTime(record.renewTime) }),
  leaseTransitions: record.leaseTransitions,
});

/**
 * A whole Lease to create.
 *
 * @example
 * lease({ name: "my-operator", namespace: "default" }, record)
 */
export const lease = (
  where: { readonly name: string; readonly namespace: string },
  record: LeaseRecord,
  metadata: { readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> } = {},
): RawBody => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name: where.name, namespace: where.namespace, ...metadata },
  spec: toSpec(record),
});

/**
 * The identity of a record's content, to tell whether it changed since it was last observed
 * (client-go compares the raw records; the expiry clock restarts only on a change).
 *
 * @example
 * fingerprint(fromLease(body)) === fingerprint(fromLease(sameBody)) // true
 */
export const fingerprint = (record: LeaseRecord): string =>
  JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime ?? null,
    record.renewTime ?? null,
    record.leaseTransitions,
  ]);
