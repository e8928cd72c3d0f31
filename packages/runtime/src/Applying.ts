/**
 * The effects at the end of a processing cycle (Kopf's `apply`, docs/behaviour/processing.md#delays-and-the-touch-dummy):
 * {@link patch} sends the cycle's patch (clearing the touch-dummy with it) and reports its
 * outcome as a `CyclePlan.Patched` value; {@link touch} patches the touch-dummy annotation with
 * the current time to provoke a new watch event. What follows each outcome — the conflict carried
 * over, the invalid patch reported, the sleep for the earliest delay, whether to touch — is
 * decided by the cycle's plan (`CyclePlan` of `@kopf/causes`); `Processing` performs it.
 */
import type { CyclePlan } from "@kopf/causes";
import type { KubeApi } from "@kopf/client";
import { OperatorSettings } from "@kopf/settings";
import { IsoTime, Patch, type RawBody, type Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as PatchApplier from "./PatchApplier.ts";

/** What to patch. */
export interface Input {
  readonly resource: Resource.Resource;
  readonly body: RawBody;
  readonly patch: Patch.Patch;
}

/**
 * Sends the patch if it holds anything; its outcome as the plan's value.
 *
 * @example
 * ```ts
 * const patched = yield* Applying.patch({ resource, body, patch })
 * if (patched._tag === "Applied") patched.resourceVersion // the version to await as its echo
 * ```
 */
export const patch = (
  input: Input,
): Effect.Effect<CyclePlan.Patched, PatchApplier.PatchNotStored | Patch.PatchError, KubeApi> =>
  Effect.withFiber((fiber) => {
    if (input.patch.isEmpty()) return Effect.succeed({ _tag: "NothingToPatch" });
    const settings = fiber.getRef(OperatorSettings);
    settings.persistence.progressStorage.touch({ body: input.body, patch: input.patch, value: null });
    return Effect.map(PatchApplier.apply(input), (outcome): CyclePlan.Patched => {
      switch (outcome._tag) {
        case "Gone":
          return { _tag: "Gone" };
        case "Applied":
          return { _tag: "Applied", resourceVersion: outcome.resourceVersion };
        case "Conflict":
          return { _tag: "Conflict", resourceVersion: outcome.resourceVersion, pending: outcome.pending };
        case "Invalid":
          return {
            _tag: "Invalid",
            resourceVersion: outcome.resourceVersion,
            message: outcome.error.message,
            payload: JSON.stringify(outcome.write.payload),
          };
      }
    });
  });

/**
 * Touches the object: the touch-dummy annotation set to the current time. The version to await,
 * if the touch was applied.
 *
 * @example
 * ```ts
 * const resourceVersion = yield* Applying.touch({ resource, body })
 * ```
 */
export const touch = (input: {
  readonly resource: Resource.Resource;
  readonly body: RawBody;
}): Effect.Effect<string | undefined, PatchApplier.PatchNotStored | Patch.PatchError, KubeApi> =>
  Effect.gen(function* () {
    const settings = yield* OperatorSettings;
    const { body, resource } = input;
    const touching = Patch.make(body);
    settings.persistence.progressStorage.touch({
      body,
      patch: touching,
      value: IsoTime.format(yield* IsoTime.now),
    });
    const touched = yield* PatchApplier.apply({ resource, body, patch: touching });
    return touched._tag === "Applied" ? touched.resourceVersion : undefined;
  });
