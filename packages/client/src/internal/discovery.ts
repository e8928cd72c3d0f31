/**
 * Discovery requests: `/api` and its versions (all preferred, as Kopf treats the core group),
 * `/apis` and each group-version (preferred when it is the group's preferred version), fetched
 * concurrently; a group-version answering 404 (gone meanwhile, e.g. a CRD being deleted) counts
 * as empty.
 */
import * as Effect from "effect/Effect";
import * as ApiResources from "../ApiResources.ts";
import type { ApiError } from "../KubeApi.ts";
import type { KubeApiError } from "../KubeApiError.ts";
import { groupVersionPath } from "./paths.ts";
import type { Requester } from "./requester.ts";

const isNotFound = (error: ApiError): error is KubeApiError =>
  error._tag === "KubeApiError" && error.reason === "NotFound";

const groupVersion = (requester: Requester, group: string, version: string, preferred: boolean) =>
  requester.sendJson({ method: "GET", path: groupVersionPath(group, version) }).pipe(
    Effect.map((body) => ApiResources.parseResources(body)),
    Effect.catchIf(isNotFound, () => Effect.succeed([])),
    Effect.map((resources): ApiResources.GroupVersionResources => ({ group, version, preferred, resources })),
  );

export const discover = (
  requester: Requester,
  wanted: ReadonlyArray<string> | undefined,
): Effect.Effect<ReadonlyArray<ApiResources.GroupVersionResources>, ApiError> =>
  Effect.gen(function* () {
    const core =
      wanted === undefined || wanted.includes("")
        ? ApiResources.parseCoreVersions(yield* requester.sendJson({ method: "GET", path: "/api" })).map(
            (version) => groupVersion(requester, "", version, true),
          )
        : [];
    const groups = ApiResources.parseGroups(yield* requester.sendJson({ method: "GET", path: "/apis" }))
      .filter((group) => wanted === undefined || wanted.includes(group.name))
      .flatMap((group) =>
        group.versions.map((v) =>
          groupVersion(requester, group.name, v.version, v.version === group.preferredVersion?.version),
        ),
      );
    return yield* Effect.all([...core, ...groups], { concurrency: 8 });
  });
