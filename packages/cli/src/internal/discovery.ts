/**
 * The resources a cluster with the given CRDs would serve, found as the operator finds them: the
 * CRDs are applied to a fresh in-process Kubernetes API emulator (with the built-in resources of
 * Kubernetes) and its discovery is scanned. Loaded only by `kopf manifests`, since the emulator
 * is a development dependency.
 */
import { KubeApi } from "@kopf/client";
import type { Resource } from "@kopf/structs";
import { Applying, Clusters } from "@kopf/testing";
import { Discovery } from "@kopf/watcher";
import * as Effect from "effect/Effect";

/**
 * Every resource of every group, with the CRDs applied.
 *
 * @example
 * ```ts
 * const known = yield* discover([crd]) // pods.v1, …, kopfexamples.v1.kopf.dev
 * ```
 */
export const discover = (
  crds: ReadonlyArray<unknown>,
): Effect.Effect<ReadonlyArray<Resource.Resource>, unknown> =>
  Effect.gen(function* () {
    yield* Applying.apply(crds);
    return yield* Discovery.scan(yield* KubeApi, null);
  }).pipe(Effect.provide(Clusters.inProcess()));
