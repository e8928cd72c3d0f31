/**
 * The application of one cycle's patch to an object (Kopf's `patch_obj` and `patch_and_check`):
 * the requests are typed values built by pure functions ({@link mergeRequests},
 * {@link jsonRequests}), and {@link apply} performs them in order, each only when needed —
 *
 * 1. a merge patch of the `/status` subresource (the handlers' results);
 * 2. a merge patch of the object (without `status` when status is a subresource): the progress
 *    records and the last-handled configuration, the marks saying which handlers are done;
 * 3. a JSON patch of the object: the merge patch and the patch functions applied to the freshest
 *    known body, diffed, guarded by a `test` of `metadata.resourceVersion`;
 * 4. a JSON patch of `/status`, guarded by the resource version of the previous response.
 *
 * Results go before marks, unlike Kopf (object first): a crash or a failed status write between
 * the two requests then leaves results without marks (the handlers run again), never marks
 * without results (the handlers would never run again and their results would be lost). Without a
 * status subresource, results and marks are one merge patch. See docs/deviations-from-kopf.md.
 *
 * The outcome is explicit ({@link Outcome}): `Applied`; `Conflict` when a guarded JSON patch met
 * a newer object (its functions are pending, to retry against the newer body); `Invalid` when the
 * API server rejected a JSON patch although the object had not changed (a real validation error,
 * not to be retried blindly); `Gone` on a 404. Any other failure fails with {@link PatchNotStored}
 * (nothing after the failed request is sent). After merge-patching, the response is compared with
 * what was asked and unexpected differences are logged as a warning: the object's response, which
 * holds the status stored before it, so the status write's own response is not decoded then.
 */
import { type ApiError, KubeApi, type KubeApiError } from "@kopf/client";
import { Body, type JsonPatchOp, Patch, PatchValue, type RawBody, type Resource } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as LogLevel from "effect/LogLevel";
import * as References from "effect/References";
import * as Result from "effect/Result";
import { inconsistencies } from "./internal/patchConsistency.ts";
import { jsonRequests, mergeRequestsOf, type Write } from "./internal/patchWrites.ts";
import * as Metrics from "./Metrics.ts";

export { jsonRequests, mergeRequests, type Write } from "./internal/patchWrites.ts";

/** The suffix Kopf appends to a version that will never come as an event (last finalizer removed while deleting). */
export const NEVER_ARRIVES = "~which~never~arrives";

/**
 * A write of the patch failed (after the client's retries): nothing after it was sent, so what
 * it and the later writes carried is not stored — in particular no mark of a handler whose
 * result was not stored; the processing is retried after its throttling (whose error line
 * carries this message).
 */
export class PatchNotStored extends Data.TaggedError("PatchNotStored")<{
  /** Which request failed. */
  readonly part: "status" | "object";
  readonly message: string;
  readonly cause: ApiError;
}> {}

/** What to patch. */
export interface PatchRequest {
  readonly resource: Resource.Resource;
  /** The object as last seen: its name and namespace address it; it is the JSON patches' reference. */
  readonly body: RawBody;
  readonly patch: Patch.Patch;
}

/** What patching did. */
export type Outcome =
  | {
      readonly _tag: "Applied";
      /** The freshest body (the last response); `undefined` when nothing was sent. */
      readonly body: RawBody | undefined;
      /**
       * The resource version to await as our own patch's echo; `undefined` when nothing was
       * sent. `"{rv}~which~never~arrives"` when the response shows a deletion with no finalizers
       * left: the API server will not bump the version, so the wait must time out.
       */
      readonly resourceVersion: string | undefined;
      readonly calls: number;
    }
  | {
      readonly _tag: "Conflict";
      /** The patch functions still to apply, on the next cycle against a newer body. */
      readonly pending: Patch.Patch;
      /** The version to await for the merge patches stored before the conflict, if any. */
      readonly resourceVersion: string | undefined;
      readonly calls: number;
    }
  | {
      readonly _tag: "Invalid";
      /** The API server's rejection, naming what is invalid. */
      readonly error: KubeApiError;
      /** The rejected request. */
      readonly write: Write;
      /** The version to await for the merge patches stored before it, if any. */
      readonly resourceVersion: string | undefined;
      readonly calls: number;
    }
  | { readonly _tag: "Gone"; readonly calls: number };

const awaitedVersion = (body: RawBody | undefined): string | undefined => {
  if (body === undefined) return undefined;
  const rv = Body.resourceVersion(body);
  if (rv === undefined) return undefined;
  const released = Body.deletionTimestamp(body) !== undefined && Body.finalizers(body).length === 0;
  return released ? `${rv}${NEVER_ARRIVES}` : rv;
};

const render = (value: unknown): string => JSON.stringify(value);

const isReason = (error: ApiError, reason: KubeApiError["reason"]): error is KubeApiError =>
  error._tag === "KubeApiError" && error.reason === reason;

/** Where an object is, for requests about it. */
export const locationOf = (body: RawBody): { readonly namespace: string | null; readonly name: string } => ({
  namespace: Body.namespace(body) ?? null,
  name: Body.name(body) ?? "",
});

/**
 * Applies the patch with at most four API calls (see the module comment). A patch function that
 * throws fails the effect with a `PatchError`.
 *
 * @example
 * ```ts
 * import { Patch } from "@kopf/structs"
 * const patch = Patch.make(body)
 * patch.status.phase = "Ready"
 * const outcome = yield* PatchApplier.apply({ resource, body, patch })
 * if (outcome._tag === "Applied") outcome.resourceVersion // the version to await before the next changing cycle
 * ```
 */
export const apply = (
  request: PatchRequest,
): Effect.Effect<Outcome, PatchNotStored | Patch.PatchError, KubeApi> =>
  KubeApi.use((api) => {
    const { resource, body, patch } = request;
    if (patch.isEmpty())
      return Effect.succeed({ _tag: "Applied", body: undefined, resourceVersion: undefined, calls: 0 });
    const location = locationOf(body);
    // The merge patch is copied once: for the requests and for the check of their responses.
    const value = patch.toValue();
    let calls = 0;
    let freshest: RawBody | undefined;

    /**
     * Sends one write and, once it is stored, goes on with `then`; a write that is not ends the
     * patching with its outcome. `superseded`: the next write answers fresher, so this one's answer
     * is not read (not even decoded).
     */
    const send = (
      write: Write,
      superseded: boolean,
      then: () => Effect.Effect<Outcome, PatchNotStored | Patch.PatchError>,
    ): Effect.Effect<Outcome, PatchNotStored | Patch.PatchError> =>
      Effect.withFiber((fiber) => {
        const where = write.part === "status" ? { ...location, subresource: "status" } : location;
        const label = write.part === "status" ? "the status" : "the resource";
        calls += 1;
        const spec = { type: write.type, body: write.payload };
        const sending = superseded
          ? api.patchUnread(resource, where, spec)
          : api.patch(resource, where, spec);
        // Rendering the payload costs a serialisation per write; only when debug lines are written.
        const debug = !LogLevel.isGreaterThan(fiber.getRef(References.MinimumLogLevel), "Debug");
        const logged = debug
          ? Effect.andThen(
              Effect.logDebug(
                `${write.type === "merge" ? "Merge" : "JSON"}-patching ${label} with: ${render(write.payload)}`,
              ),
              sending,
            )
          : sending;
        return Effect.matchEffect(logged, {
          onSuccess: (answer) => {
            if (answer !== undefined) freshest = answer;
            return then();
          },
          onFailure: (error) => failed(write, error),
        });
      });

    /** What a failed write ends the patching with. */
    const failed = (write: Write, error: ApiError): Effect.Effect<Outcome, PatchNotStored> => {
      if (isReason(error, "NotFound"))
        return Effect.as(Effect.logDebug("Patching was skipped: the object does not exist anymore."), {
          _tag: "Gone",
          calls,
        });
      if (write.type === "json" && isReason(error, "Invalid")) return rejected(write, error);
      return Effect.fail(
        new PatchNotStored({
          part: write.part,
          message:
            write.part === "status"
              ? `Storing the status failed (${error.message}); nothing is marked as handled, the handlers stay pending and will run again.`
              : `Patching the object failed (${error.message}); what this cycle did is not marked as handled, it will be processed again.`,
          cause: error,
        }),
      );
    };

    /** A 422 on a guarded JSON patch: a conflict if the object changed since the tested version, else invalid. */
    const rejected = (write: Write, error: KubeApiError) =>
      Effect.gen(function* () {
        const tested = ((write.payload as ReadonlyArray<JsonPatchOp>)[0] as { value?: unknown }).value;
        const now = yield* Effect.result(api.get(resource, location));
        if (Result.isFailure(now))
          return isReason(now.failure, "NotFound") ? ({ _tag: "Gone", calls } as const) : conflict();
        return Body.resourceVersion(now.success) === tested
          ? ({ _tag: "Invalid", error, write, resourceVersion: awaitedVersion(freshest), calls } as const)
          : conflict();
      });
    const conflict = (): Outcome => ({
      _tag: "Conflict",
      pending: new Patch.Patch(undefined, { fns: patch.fns }),
      resourceVersion: awaitedVersion(freshest),
      calls,
    });

    /**
     * Sends the writes one after another (each made when its turn comes), then goes on with `next`.
     * With `chained` (the merge patches), each write's answer but the last is superseded by the
     * next one's; a JSON patch's answer guards the next JSON patch, so each is read.
     */
    const sendEach = (
      writes: ReadonlyArray<Write>,
      made: (write: Write) => Write,
      chained: boolean,
      next: () => Effect.Effect<Outcome, PatchNotStored | Patch.PatchError>,
    ): Effect.Effect<Outcome, PatchNotStored | Patch.PatchError> => {
      const from = (index: number): Effect.Effect<Outcome, PatchNotStored | Patch.PatchError> =>
        index >= writes.length
          ? next()
          : send(made(writes[index]!), chained && index < writes.length - 1, () => from(index + 1));
      return from(0);
    };

    const applied = () =>
      Effect.withFiber((fiber) => {
        Metrics.patchAppliedNow(fiber);
        return Effect.succeed<Outcome>({
          _tag: "Applied",
          body: freshest,
          resourceVersion: awaitedVersion(freshest),
          calls,
        });
      });
    // Each JSON patch is guarded by the version of the response before it.
    const guarded = (write: Write): Write => {
      const [, ...ops] = write.payload as ReadonlyArray<JsonPatchOp>;
      return { ...write, payload: [PatchValue.guard(freshest ?? body), ...ops] };
    };
    const afterMerges = (): Effect.Effect<Outcome, PatchNotStored | Patch.PatchError> => {
      const found = freshest === undefined ? [] : inconsistencies(value.mergePatch, freshest);
      const json = jsonRequests(resource, patch, freshest ?? body);
      const rest = Result.isFailure(json)
        ? Effect.fail(json.failure)
        : sendEach(json.success, guarded, false, applied);
      return found.length > 0
        ? Effect.andThen(
            Effect.logWarning(`Merge-patching finished with inconsistencies: ${render(found)}`),
            rest,
          )
        : rest;
    };
    return sendEach(mergeRequestsOf(resource, value), (write) => write, true, afterMerges);
  });
