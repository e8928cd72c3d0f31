/**
 * `KopfRunner.apply` on any cluster, through the runner's `KubeApi` (not the emulator's own
 * store), so a test sets up a real cluster exactly as it sets up the emulator: each object is
 * created, or merge-patched when it exists; its resource is found by discovery (retried while a
 * just-created CRD is not served yet); a CRD is waited for until it is `Established` and served.
 */
import { type APIResource, KubeApi, type KubeApiError, type LoginError } from "@kopf/client";
import { type RawBody, Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import { KopfRunnerError } from "./KopfRunnerOptions.ts";
import { customResourceDefinitions } from "./Resources.ts";

type ApiError = KubeApiError | LoginError;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** How long a kind may stay undiscoverable, or a CRD unestablished (a real API server needs ~1 s). */
const PATIENCE = { attempts: 200, interval: "100 millis" } as const;

const retryWhile = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  condition: (error: E) => boolean,
): Effect.Effect<A, E, R> =>
  Effect.retry(effect, {
    while: condition,
    times: PATIENCE.attempts,
    schedule: Schedule.spaced(PATIENCE.interval),
  });

const isApiError = (error: unknown, reason: string) =>
  isObject(error) && error._tag === "KubeApiError" && error.reason === reason;

const unknownKind = (apiVersion: string, kind: string) =>
  new KopfRunnerError({
    reason: "NotFound",
    message: `no resource is served for ${apiVersion} ${kind} (is its CRD applied and established?)`,
  });

/** The resource of an `apiVersion` + `kind`, by discovery. */
const resolve = (apiVersion: string, kind: string) =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const [group, version] = apiVersion.includes("/")
      ? (apiVersion.split("/", 2) as [string, string])
      : ["", apiVersion];
    const served = yield* api.discover({ groups: [group] });
    const found = served
      .filter((gv) => gv.group === group && gv.version === version)
      .flatMap((gv) => gv.resources)
      .find((r: APIResource) => r.kind === kind && !r.name.includes("/"));
    if (found === undefined) return yield* Effect.fail(unknownKind(apiVersion, kind));
    const subresources = served
      .filter((gv) => gv.group === group && gv.version === version)
      .flatMap((gv) => gv.resources)
      .filter((r) => r.name.startsWith(`${found.name}/`))
      .map((r) => r.name.slice(found.name.length + 1));
    return Resource.make({
      group,
      version,
      plural: found.name,
      kind,
      namespaced: found.namespaced,
      subresources,
      verbs: found.verbs,
    });
  });

const established = (body: RawBody): boolean => {
  const conditions = (body as { status?: { conditions?: unknown } }).status?.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isObject(c) && c.type === "Established" && c.status === "True")
  );
};

/** Waits until a CRD is established and its kind is served, so objects of it can follow at once. */
const awaitCrd = (name: string, raw: Record<string, unknown>) =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    yield* retryWhile(
      api
        .get(customResourceDefinitions, { name })
        .pipe(
          Effect.flatMap((body) =>
            established(body)
              ? Effect.void
              : Effect.fail(
                  new KopfRunnerError({ reason: "Timeout", message: `the CRD ${name} is not established` }),
                ),
          ),
        ),
      (error) => error._tag === "KopfRunnerError",
    );
    const spec = isObject(raw.spec) ? raw.spec : {};
    const group = str(spec.group) ?? "";
    const kind = str(isObject(spec.names) ? spec.names.kind : undefined) ?? "";
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
    for (const version of versions.filter((v) => v.served !== false)) {
      yield* retryWhile(
        resolve(`${group}/${str(version.name) ?? ""}`, kind),
        (error) => isObject(error) && (error._tag === "KopfRunnerError" || isApiError(error, "NotFound")),
      );
    }
  });

/** Kinds already resolved in one `apply` call: several objects of a kind cost one discovery. */
type Resolved = Map<string, Resource.Resource>;

const applyOne = (
  raw: unknown,
  resolved: Resolved,
): Effect.Effect<void, ApiError | KopfRunnerError, KubeApi> =>
  Effect.gen(function* () {
    if (!isObject(raw) || !isObject(raw.metadata ?? {})) {
      return yield* new KopfRunnerError({
        reason: "NotFound",
        message: `an object to apply is not a Kubernetes object: ${JSON.stringify(raw)}`,
      });
    }
    const apiVersion = str(raw.apiVersion);
    const kind = str(raw.kind);
    const meta = (raw.metadata ?? {}) as Record<string, unknown>;
    const name = str(meta.name);
    if (apiVersion === undefined || kind === undefined || name === undefined) {
      return yield* new KopfRunnerError({
        reason: "NotFound",
        message: `an object to apply needs apiVersion, kind and metadata.name: ${JSON.stringify(raw)}`,
      });
    }
    const api = yield* KubeApi;
    const key = `${apiVersion} ${kind}`;
    const resource =
      resolved.get(key) ??
      (yield* retryWhile(resolve(apiVersion, kind), (error) => error._tag === "KopfRunnerError"));
    resolved.set(key, resource);
    const namespace = resource.namespaced ? (str(meta.namespace) ?? "default") : undefined;
    const body = (namespace === undefined ? raw : { ...raw, metadata: { ...meta, namespace } }) as RawBody;
    yield* api.create(resource, body, { namespace: namespace ?? null }).pipe(
      Effect.catchIf(
        (error) => isApiError(error, "Conflict"),
        () => api.patch(resource, { name, namespace }, { type: "merge", body }),
      ),
    );
    if (kind === "CustomResourceDefinition") yield* awaitCrd(name, raw);
  });

/**
 * Creates (or merge-patches) each object in order through the `KubeApi`.
 *
 * @example
 * ```ts
 * yield* Applying.apply([crd, namespace, object]) // with a KubeApi in context
 * ```
 */
export const apply = (
  objects: ReadonlyArray<unknown>,
): Effect.Effect<void, ApiError | KopfRunnerError, KubeApi> =>
  Effect.suspend(() => {
    const resolved: Resolved = new Map();
    return Effect.forEach(objects, (raw) => applyOne(raw, resolved), { discard: true });
  });
