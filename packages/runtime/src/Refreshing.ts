/**
 * The re-read of an object whose own patch's version did not come back in time (the consistency
 * gate's `Refresh`, docs/behaviour/watching.md#consistency): the version the API server has now.
 * When the object cannot be read, the version is unknown and the gate assumes consistency, as
 * Kopf does after the timeout.
 */
import { KubeApi } from "@kopf/client";
import { Body, type RawBody, type Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as PatchApplier from "./PatchApplier.ts";

/**
 * The object's version on the API server now; `undefined` when it cannot be read (logged).
 *
 * @example
 * ```ts
 * const current = yield* Refreshing.currentVersion({ resource, body })
 * if (current !== Body.resourceVersion(body)) // the state being processed is stale
 * ```
 */
export const currentVersion = (input: {
  readonly resource: Resource.Resource;
  readonly body: RawBody;
}): Effect.Effect<string | undefined, never, KubeApi> =>
  KubeApi.use((api) => {
    const { resource, body } = input;
    return api.get(resource, PatchApplier.locationOf(body)).pipe(
      Effect.map(Body.resourceVersion),
      Effect.tap((current) =>
        Effect.logDebug(
          `Our own patch's version did not arrive in time; a re-read found version ${current} (this state: ${Body.resourceVersion(body)}).`,
        ),
      ),
      Effect.catch((error) =>
        Effect.as(
          Effect.logDebug(
            `Our own patch's version did not arrive in time and the object could not be re-read (${error.message}); consistency is assumed.`,
          ),
          undefined,
        ),
      ),
    );
  });
