// The Lease's record in client-go's format: MicroTime timestamps with six digits and Z, empty
// fields read as empty, a round trip through the spec.
import { describe, expect, it } from "vitest";
import * as LeaseRecord from "../src/LeaseRecord.ts";

describe("LeaseRecord", () => {
  const record: LeaseRecord.LeaseRecord = {
    holderIdentity: "pod-a",
    leaseDurationSeconds: 15,
    acquireTime: 1_764_547_200_000_001,
    renewTime: 1_764_547_215_123_456,
    leaseTransitions: 2,
  };

  it("writes MicroTime with microseconds, as kube-controller-manager's leases have them", () => {
    expect(LeaseRecord.toSpec(record)).toEqual({
      holderIdentity: "pod-a",
      leaseDurationSeconds: 15,
      acquireTime: "2025-12-01T00:00:00.000001Z",
      renewTime: "2025-12-01T00:00:15.123456Z",
      leaseTransitions: 2,
    });
  });

  it("reads back what it writes", () => {
    expect(LeaseRecord.fromLease({ spec: LeaseRecord.toSpec(record) })).toEqual(record);
  });

  it("reads missing or malformed fields as empty (a fresh or foreign lease)", () => {
    expect(LeaseRecord.fromLease({ spec: { renewTime: "yesterday" } })).toEqual({
      holderIdentity: "",
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: undefined,
      leaseTransitions: 0,
    });
    expect(LeaseRecord.fromLease({}).holderIdentity).toBe("");
  });

  it("builds a whole Lease", () => {
    expect(LeaseRecord.lease({ name: "op", namespace: "ns" }, record, { labels: { a: "b" } })).toMatchObject({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "op", namespace: "ns", labels: { a: "b" } },
      spec: { holderIdentity: "pod-a" },
    });
  });
});
