/**
 * Admission in a running operator (Kopf's admission root tasks, docs/behaviour/admission.md#configuration, docs/behaviour/admission.md#managed-configurations, docs/behaviour/operator.md#tasks-start-up-and-shutdown): after
 * the initial scan of the resources served by webhooks, run `settings.admission.server` with the
 * operator's webhook function, and — when `settings.admission.managed` names them — keep the
 * Validating/MutatingWebhookConfigurations pointing at it while the served resources and the
 * server's endpoint change, leaving only the persistent handlers' webhooks on exit.
 *
 * Nothing runs when the registry has no webhook handlers and no typed resource with a conversion
 * (whose ConversionReviews the same server answers); handlers without a server fail with
 * Kopf's message. In an operator, admission is one of the runtime's root tasks ({@link task}, as
 * `Operator.run({ tasks: [Admission.task] })`): it starts after the startup handlers, with the
 * settings they left, and shares the operator's memo, its objects' memos and its indices.
 */
import { KubeApi } from "@kopf/client";
import type { Memo, Registry, WebhookType } from "@kopf/registry";
import { Operator } from "@kopf/runtime";
import { OperatorSettings } from "@kopf/settings";
import type { Resource } from "@kopf/structs";
import { ListWatch, ResourceObserver, Watcher } from "@kopf/watcher";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import * as SubscriptionRef from "effect/SubscriptionRef";
import type { ClientConfig } from "./ClientConfig.ts";
import * as ConfigManager from "./ConfigManager.ts";
import * as Conversion from "./Conversion.ts";
import * as Serving from "./Serving.ts";
import { isServer, type WebhookServerError } from "./WebhookServerProtocol.ts";

/** Why admission could not run. */
export class AdmissionRunError extends Data.TaggedError("AdmissionRunError")<{
  readonly reason: "NoServer" | "InvalidServer" | "InvalidSettings" | "Server" | "Managed";
  readonly message: string;
  readonly cause?: unknown;
}> {}

/** What admission needs from the operator. */
export interface AdmissionOptions {
  readonly registry: Registry.Registry<any>;
  /** The operator's memo (CREATE requests get a throw-away copy). */
  readonly memo?: Memo | undefined;
  /** The memo of an existing object, when the runtime shares its memories. */
  readonly memoOf?: Serving.ServingOptions["memoOf"];
  /** The operator's indices by name. */
  readonly indices?: (() => Readonly<Record<string, unknown>>) | undefined;
  /** Completes when the operator is ready (startup done); the server starts after it. */
  readonly ready?: Effect.Effect<void> | undefined;
  /** Completed with each client config the server reports (e.g. for tests and tooling). */
  readonly onClientConfig?: ((config: ClientConfig) => Effect.Effect<void>) | undefined;
}

/** Kopf's message when webhook handlers exist but nothing serves them. */
export const NO_SERVER_MESSAGE =
  "Admission handlers exist, but no admission server/tunnel is configured in `settings.admission.server`. " +
  "More: https://kopf.readthedocs.io/en/stable/admission/";

/**
 * Runs admission until interrupted.
 *
 * @example
 * ```ts
 * const settings = { admission: { server: WebhookServer.WebhookServer({ port: 9443 }), managed: "auto.kopf.dev" } }
 * yield* Admission.run({ registry }).pipe(Effect.provideService(OperatorSettings, Settings.mutableCopy(settings)))
 * ```
 */
export const run = (options: AdmissionOptions): Effect.Effect<void, AdmissionRunError, KubeApi> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { registry } = options;
      if (registry.webhooks.length === 0 && !Conversion.hasConversions(registry)) return;
      const settings = yield* OperatorSettings;
      const server = settings.admission.server;
      if (server === null)
        return yield* new AdmissionRunError({ reason: "NoServer", message: NO_SERVER_MESSAGE });
      if (!isServer(server)) {
        return yield* new AdmissionRunError({
          reason: "InvalidServer",
          message: "settings.admission.server must be a webhook server or tunnel (an object with serve(fn)).",
        });
      }

      const api = yield* KubeApi;
      const observer = yield* ResourceObserver.make(api, (crd) => ListWatch.fromKubeApi(api, crd, null), {
        selectors: { webhooks: registry.selectors("webhooks"), indexed: [], watched: [], patched: [] },
        scanningDisabled: settings.scanning.disabled,
        watcher: Watcher.optionsFromSettings(settings),
      });
      if (options.ready !== undefined) yield* options.ready;

      let served = (yield* SubscriptionRef.get(observer.observed)).insights.webhooks;
      const resources = yield* SubscriptionRef.make<ReadonlyArray<Resource.Resource>>(served);
      yield* Effect.forkScoped(
        Stream.runForEach(SubscriptionRef.changes(observer.observed), (o) =>
          Effect.suspend(() => {
            served = o.insights.webhooks;
            return SubscriptionRef.set(resources, served);
          }),
        ),
      );
      const fn = yield* Serving.make({
        registry,
        resources: () => served,
        memo: options.memo ?? {},
        memoOf: options.memoOf,
        indices: options.indices,
      });

      const configs = yield* SubscriptionRef.make<ClientConfig | undefined>(undefined);
      const serving = Stream.runForEach(server.serve(fn), (config) =>
        SubscriptionRef.set(configs, config).pipe(
          Effect.andThen(options.onClientConfig?.(config) ?? Effect.void),
        ),
      ).pipe(
        Effect.mapError(
          (error: WebhookServerError) =>
            new AdmissionRunError({ reason: "Server", message: error.message, cause: error }),
        ),
      );

      const managed = settings.admission.managed;
      if (managed === null) return yield* serving;

      const targets = Stream.zipLatest(
        SubscriptionRef.changes(configs).pipe(Stream.filter((c): c is ClientConfig => c !== undefined)),
        SubscriptionRef.changes(resources),
      ).pipe(
        Stream.map(([clientConfig, current]): ConfigManager.Target => ({ clientConfig, resources: current })),
        Stream.changesWith((a, b) => a.clientConfig === b.clientConfig && a.resources === b.resources),
      );
      const manage = (reason: WebhookType) =>
        ConfigManager.manage({ reason, name: managed, handlers: registry.webhooks }, targets).pipe(
          Effect.mapError(
            (error) => new AdmissionRunError({ reason: "Managed", message: error.message, cause: error }),
          ),
        );
      yield* Effect.all([serving, manage("validating"), manage("mutating")], {
        concurrency: "unbounded",
        discard: true,
      });
    }),
  );

/**
 * What admission takes from the operator: the runtime's `RootTasks.RootTaskContext`, with the
 * optional parts optional (so it can also be called by hand, e.g. in tests).
 */
export interface TaskContext {
  readonly registry: Registry.Registry<any>;
  /** The operator's settings as the startup handlers left them. */
  readonly settings: OperatorSettings;
  readonly memo: Memo;
  /** Completes after the initial resource scan. */
  readonly scanned?: Effect.Effect<void> | undefined;
  readonly memoOf?: Serving.ServingOptions["memoOf"];
  readonly indices?: (() => Readonly<Record<string, unknown>>) | undefined;
}

/**
 * Admission as an operator root task (the runtime's `tasks` seam): with the operator's own
 * settings (so `settings.admission` set by startup handlers applies, as in Kopf), memo, object
 * memos (non-CREATE requests share the memo of the object's handlers) and indices.
 *
 * @example
 * ```ts
 * yield* Operator.run({ registry, namespaces: ["default"], tasks: [Admission.task] })
 * ```
 */
export const task = (context: TaskContext): Effect.Effect<void, AdmissionRunError, KubeApi> =>
  run({
    registry: context.registry,
    memo: context.memo,
    memoOf: context.memoOf,
    indices: context.indices,
    ready: context.scanned,
  }).pipe(Effect.provideService(OperatorSettings, context.settings));

/**
 * Runs the operator with its admission webhooks: `Operator.run(options)` with {@link task} among
 * its root tasks. Admission fails the operator (`OperatorError`, reason `TaskFailed`, with
 * admission's message); interrupting stops both gracefully. The `kopf` facade and `kopf run`
 * compose the same with every engine; this is the runtime-only form.
 *
 * @example
 * ```ts
 * const settings = { admission: { server: WebhookServer.WebhookServer({ port: 9443 }), managed: "auto.kopf.dev" } }
 * yield* Admission.operate({ registry, namespaces: ["default"], settings })
 * ```
 */
export const operate = (
  options: Operator.OperatorOptions,
): Effect.Effect<void, Operator.OperatorError, KubeApi> =>
  Operator.run({ ...options, tasks: [...(options.tasks ?? []), task] });
