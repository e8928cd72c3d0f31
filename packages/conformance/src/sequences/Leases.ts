/**
 * coordination.k8s.io/v1 Leases as leader election and sharding write them: creation with a
 * holder, durations and microsecond times, renewal by update and by merge patch, a conflicting
 * stale update, validation of durations and transitions, fields dropped while the
 * `CoordinatedLeaderElection` gate is off, time formats, listing by label, and deletion.
 */
import type { Sequence } from "../Interaction.ts";
import { del, get, MERGE, namespace, patch, post, put } from "./internal/steps.ts";

const lease = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
  spec,
});

const HELD = {
  holderIdentity: "replica-1",
  leaseDurationSeconds: 15,
  acquireTime: "2026-01-02T03:04:05.123456Z",
  renewTime: "2026-01-02T03:04:05.123456Z",
  leaseTransitions: 0,
};

/** The leases sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-lease-${run}`;
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
  return {
    name: "leases",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("create", leases, lease("held", HELD, { ring: "r1" })),
      get("get", `${leases}/held`),
      put("renew", `${leases}/held`, undefined, {
        bodyFrom: (earlier) => {
          const held = earlier("get") as { metadata: Record<string, unknown> };
          return {
            ...lease("held", { ...HELD, renewTime: "2026-01-02T03:04:07.654321Z" }),
            metadata: held.metadata,
          };
        },
      }),
      put("renew-stale", `${leases}/held`, undefined, {
        bodyFrom: (earlier) => {
          const held = earlier("get") as { metadata: Record<string, unknown> };
          return { ...lease("held", { ...HELD, holderIdentity: "replica-2" }), metadata: held.metadata };
        },
      }),
      patch("take-over", `${leases}/held`, MERGE, {
        spec: {
          holderIdentity: "replica-2",
          leaseTransitions: 1,
          acquireTime: "2026-01-02T03:05:00.000001Z",
        },
      }),
      patch("release", `${leases}/held`, MERGE, { spec: { holderIdentity: null } }),
      post("create-empty-spec", leases, lease("empty", {})),
      post("create-zero-duration", leases, lease("zero", { leaseDurationSeconds: 0 })),
      post("create-negative-transitions", leases, lease("negative", { leaseTransitions: -1 })),
      post("create-both-invalid", leases, lease("both", { leaseDurationSeconds: -5, leaseTransitions: -2 })),
      post("create-preferred-holder", leases, lease("preferred", { preferredHolder: "replica-1" })),
      post("create-strategy", leases, lease("strategy", { strategy: "OldestEmulationVersion" })),
      post("create-seconds-time", leases, lease("seconds", { renewTime: "2026-01-02T03:04:05Z" })),
      post("create-bad-time", leases, lease("badtime", { renewTime: "yesterday" })),
      post("create-string-duration", leases, lease("strdur", { leaseDurationSeconds: "15" })),
      patch("invalid-patch", `${leases}/held`, MERGE, { spec: { leaseDurationSeconds: 0 } }),
      get("list-by-label", `${leases}?labelSelector=ring%3Dr1`),
      del("delete", `${leases}/held`),
      get("get-deleted", `${leases}/held`),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};
