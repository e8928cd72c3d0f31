/**
 * Managed webhook configurations on the cluster (Kopf's `validating_configuration_manager` and
 * `mutating_configuration_manager`, docs/behaviour/admission.md#managed-configurations): create the named Validating/Mutating
 * WebhookConfiguration objects (an existing one is fine; no permission is an error), replace
 * their `webhooks` with one entry per handler whenever the server's client config or the served
 * resources change, and on exit keep only the webhooks of `persistent` handlers.
 */
import { KubeApi, type KubeApiError, type LoginError } from "@kopf/client";
import type { WebhookHandler, WebhookType } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import type { ClientConfig } from "./ClientConfig.ts";
import * as ManagedWebhooks from "./ManagedWebhooks.ts";

/** Why a managed configuration could not be kept. */
export class ConfigManagerError extends Data.TaggedError("ConfigManagerError")<{
  readonly reason: "Forbidden" | "Api";
  readonly message: string;
  readonly cause?: unknown;
}> {}

const resourceOf = (reason: WebhookType): Resource.Resource =>
  Resource.make({
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: reason === "validating" ? "validatingwebhookconfigurations" : "mutatingwebhookconfigurations",
    kind: reason === "validating" ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration",
    namespaced: false,
    verbs: ["create", "get", "list", "patch", "watch", "delete", "update"],
  });

/** The resource of the configuration kind of webhook handlers of `reason`. */
export const configurationResource = resourceOf;

/** What one manager keeps. */
export interface ManagerOptions {
  readonly reason: WebhookType;
  /** The configuration's name (`settings.admission.managed`). */
  readonly name: string;
  readonly handlers: ReadonlyArray<WebhookHandler>;
}

/** One state to apply: the server's current client config and the served resources. */
export interface Target {
  readonly clientConfig: ClientConfig;
  readonly resources: ReadonlyArray<Resource.Resource>;
}

const apiError = (what: string) => (error: KubeApiError | LoginError) =>
  new ConfigManagerError({ reason: "Api", message: `${what} failed: ${error.message}`, cause: error });

/**
 * Creates the configuration if absent (409 is fine; 403 fails with a clear error).
 *
 * @example
 * yield* ConfigManager.ensure({ reason: "validating", name: "auto.kopf.dev", handlers })
 */
export const ensure = (options: ManagerOptions): Effect.Effect<void, ConfigManagerError, KubeApi> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const resource = resourceOf(options.reason);
    yield* api.create(resource, { metadata: { name: options.name } } as never).pipe(
      Effect.asVoid,
      Effect.catch((error) => {
        if (error._tag === "KubeApiError" && error.reason === "Conflict") return Effect.void;
        if (error._tag === "KubeApiError" && error.reason === "Forbidden") {
          const message = `Not enough RBAC permissions to create the ${resource.kind} ${options.name}: ${error.message}`;
          return Effect.logError(message).pipe(
            Effect.andThen(
              Effect.fail(new ConfigManagerError({ reason: "Forbidden", message, cause: error })),
            ),
          );
        }
        return Effect.fail(apiError(`Creating the ${resource.kind} ${options.name}`)(error));
      }),
    );
  });

/**
 * Replaces the configuration's webhooks with those built for `target` (a merge patch of the whole list).
 *
 * @example
 * yield* ConfigManager.apply(options, { clientConfig: { url }, resources })
 */
export const apply = (
  options: ManagerOptions,
  target: Target,
  persistentOnly = false,
): Effect.Effect<void, ConfigManagerError, KubeApi> =>
  Effect.gen(function* () {
    const api = yield* KubeApi;
    const resource = resourceOf(options.reason);
    yield* Effect.logInfo(
      persistentOnly
        ? `Cleaning up the admission webhook ${options.name}.`
        : `Reconfiguring the ${options.reason} webhook ${options.name}.`,
    );
    const webhooks = ManagedWebhooks.build({
      handlers: options.handlers,
      reason: options.reason,
      resources: target.resources,
      name: options.name,
      clientConfig: target.clientConfig,
      persistentOnly,
    });
    yield* api
      .patch(resource, { name: options.name }, { type: "merge", body: { webhooks } })
      .pipe(Effect.asVoid, Effect.mapError(apiError(`Patching the ${resource.kind} ${options.name}`)));
  });

/**
 * Keeps one configuration up to date with `targets` until interrupted, then patches it down to
 * the persistent handlers' webhooks (with the last target seen).
 *
 * @example
 * yield* ConfigManager.manage({ reason: "mutating", name: "auto.kopf.dev", handlers }, targets)
 */
export const manage = (
  options: ManagerOptions,
  targets: Stream.Stream<Target>,
): Effect.Effect<void, ConfigManagerError, KubeApi> =>
  Effect.gen(function* () {
    yield* ensure(options);
    let last: Target | undefined;
    const cleanup = Effect.suspend(() =>
      last === undefined
        ? Effect.void
        : apply(options, last, true).pipe(
            Effect.catch((error) =>
              Effect.logError(`Cannot clean up the managed webhooks: ${error.message}`),
            ),
          ),
    );
    yield* Stream.runForEach(targets, (target) =>
      Effect.gen(function* () {
        last = target;
        yield* apply(options, target);
      }),
    ).pipe(Effect.ensuring(cleanup));
  });
