/**
 * The public API users import: `import * as kopf from "kopf"`. Registration calls on the default
 * registry (`kopf.on.*`, `kopf.daemon`, `kopf.timer`, `kopf.index`), sub-handlers, errors,
 * filters, lifecycles, registries, settings, storages, events, the hierarchies kit, admission
 * servers, running operators, and the types handlers see. The machinery below (cause detection,
 * matching, handler state) is not part of it: its packages are for the runtime.
 */

// Admission webhook servers and tunnels for `settings.admission.server`: @kopf/admission.
export { AdmissionRunError } from "@kopf/admission";
// Logging in from on.login handlers (Kopf's login_with_kubeconfig/login_with_service_account).
export { ConnectionInfo, LoginError } from "@kopf/client";
// The hierarchies kit: @kopf/hierarchies, the owner defaulting to the running handler's object.
export {
  type AdoptOptions,
  HierarchyError,
  type LabelOptions,
  type NamespaceOptions,
  type NamingOptions,
  type Obj,
  type OwnerReferenceOptions,
} from "@kopf/hierarchies";
// The handler API of @kopf/registry.
export {
  ABSENT,
  type Activity,
  type ActivityContext,
  type ActivityHandler,
  AdmissionError,
  type AnyHandler,
  all_,
  any_,
  type ChangingContext,
  type ChangingFilterContext,
  type ChangingHandler,
  type DaemonContext,
  type DaemonHandler,
  type DaemonStopped,
  type DaemonStoppingReason,
  type DelayContext,
  ErrorsMode,
  type HandlerFn,
  HandlerRetriesError,
  HandlerTimeoutError,
  type Index,
  type IndexingContext,
  type IndexingFilterContext,
  type IndexingHandler,
  type Lifecycle,
  type LifecycleContext,
  Lifecycles as lifecycles,
  type Logger,
  type Memo,
  type MetaFilter,
  none_,
  not_,
  type Operation,
  PermanentError,
  PRESENT,
  Reason,
  RegistrationError,
  type RegistrationErrorReason,
  type ResourceHandler,
  ResourceSpec,
  type SpawningFilterContext,
  type SpawningHandler,
  type Store,
  TemporaryError,
  type TimerContext,
  type TimerHandler,
  type ValueFilter,
  type WatchingContext,
  type WatchingFilterContext,
  type WatchingHandler,
  type WebhookContext,
  type WebhookFilterContext,
  type WebhookHandler,
  type WebhookType,
  type WhenFilterFn,
} from "@kopf/registry";
// Settings: @kopf/settings.
export {
  OperatorSettings,
  Settings,
  SettingsError,
  type SettingsErrorReason,
  type SettingsIssue,
} from "@kopf/settings";
// On-cluster state: @kopf/storage.
export {
  AnnotationsDiffBaseStorage,
  AnnotationsProgressStorage,
  DiffBaseStorage,
  MultiDiffBaseStorage,
  MultiProgressStorage,
  ProgressRecord,
  ProgressStorage,
  SmartProgressStorage,
  StatusDiffBaseStorage,
  StatusProgressStorage,
  StorageConfigError,
  StorageDecodeError,
  StorageError,
} from "@kopf/storage";
// Kubernetes data: @kopf/structs.
export {
  Diff,
  type DiffItem,
  type DiffOperation,
  type DiffScope,
  EVERYTHING,
  type FieldSpec,
  type JsonObject,
  type JsonPatchOp,
  type JsonValue,
  type MetaPatch,
  type MutableBody,
  type ObjectMeta,
  type ObjectReference,
  type OwnerReference,
  Patch,
  type PatchFn,
  type PatchObject,
  type RawBody,
  type RawEvent,
  type RawEventType,
  Resource,
  Selector,
} from "@kopf/structs";
// Registration on the default registry, sub-handlers, registries and lifecycles.
export { getDefaultLifecycle, setDefaultLifecycle } from "./DefaultLifecycle.ts";
export { getDefaultRegistry, setDefaultRegistry } from "./DefaultRegistry.ts";
// Kubernetes events about objects, posted by the running operator.
export { EventsError, event, exception, info, type Objects, warn } from "./Events.ts";
export {
  adjustNamespace,
  adopt,
  appendOwnerReference,
  buildObjectReference,
  buildOwnerReference,
  harmonizeNaming,
  label,
  removeOwnerReference,
} from "./Hierarchies.ts";
export { IndexError, type IndexKey, type IndexRef, type IndexValue, indexOf } from "./Indices.ts";
export {
  type KubeconfigOptions,
  loginWithKubeconfig,
  loginWithServiceAccount,
  type ServiceAccountOptions,
} from "./Logins.ts";
export { daemon, index, on, timer } from "./On.ts";
export * as Registry from "./Registry.ts";
// Running operators: the Promise API over @kopf/runtime's Operator, and logging configuration.
export {
  configure,
  type LoggingOptions,
  liveCluster,
  type OperatorOptions,
  operator,
  type RunningOperator,
  run,
} from "./Running.ts";
export { execute, register, type SubRegistryOption, subhandler } from "./Subhandlers.ts";
export {
  type NgrokOptions,
  WebhookAutoServer,
  WebhookAutoTunnel,
  WebhookDockerDesktopServer,
  WebhookK3dServer,
  WebhookMinikubeServer,
  WebhookNgrokTunnel,
  WebhookServer,
  type WebhookServerOptions,
} from "./Webhooks.ts";
