/**
 * The shape of the operator settings: Kopf's `OperatorSettings` tree, camelCased, as plain
 * read-only data. Durations are numbers of seconds, as in Kopf; `null` means "not set" where
 * Kopf allows `None`. The defaults live in `Settings.defaults()`.
 */
import type { DiffBaseStorage, ProgressStorage } from "@kopf/storage";
import type * as LogLevel from "effect/LogLevel";

/** Settings of the operator's OS process (used by the CLI's signal handling). */
export interface ProcessSettings {
  /** Seconds from the first SIGTERM/SIGINT until the process is force-exited; `null` disables. Default `600`. */
  readonly ultimateExitingTimeout: number | null;
}

/** Posting of Kubernetes Events for objects. */
export interface PostingSettings {
  /** Allow posting Kubernetes Events at all (explicit calls and the logger bridge). Default `true`. */
  readonly enabled: boolean;
  /** Also post the object loggers' messages as Kubernetes Events. Default `false`. */
  readonly loggers: boolean;
  /** Minimum level of messages that are posted. Default `"Info"` (Kopf: `logging.INFO`). */
  readonly level: LogLevel.LogLevel;
  /** The Events' `reportingComponent` and `source.component`. Default `"kopf"`. */
  readonly reportingComponent: string;
  /** The Events' `reportingInstance`. Default `"dev"`. */
  readonly reportingInstance: string;
  /** The Events' `metadata.generateName`. Default `"kopf-event-"`. */
  readonly eventNamePrefix: string;
}

/** Peering: how operators for the same resources see and pause each other. */
export interface PeeringSettings {
  /** Name of the peering object (an isolated neighbourhood of operators). Default `"default"`. */
  readonly name: string;
  /** Do not log keep-alives. Default `false`. */
  readonly stealth: boolean;
  /** This operator's priority; lower or equal priorities pause on seeing it. Default `0`. */
  readonly priority: number;
  /** Seconds for which this operator's presence record is valid for others. Default `60`. */
  readonly lifetime: number;
  /** Fail when the peering object is absent instead of running standalone. Default `false`. */
  readonly mandatory: boolean;
  /** Run without peering even if the peering object exists. Default `false`. */
  readonly standalone: boolean;
  /**
   * Use the cluster-wide peering object instead of the namespaced ones. Default `false`; set from
   * the run mode. Kopf's `namespaced` is its inverse and is accepted as an override.
   */
  readonly clusterwide: boolean;
}

/** How replicas of one operator share the work (see the operations guide). */
export interface ScalingSettings {
  /**
   * `"single"`: this replica handles everything (the default); `"leader-election"`: one replica
   * (the Lease's holder) handles everything, the others stand by warm; `"sharding"`: every
   * replica handles the objects in its share of the hash space.
   */
  readonly mode: "single" | "leader-election" | "sharding";
  /** The Lease of the election, or the prefix and ring label of the members' Leases. Default `"kopf"`. */
  readonly leaseName: string;
  /** The Leases' namespace; `null`: the served namespace if exactly one, else `"default"`. Default `null`. */
  readonly leaseNamespace: string | null;
  /** Seconds a lease is valid after it was last seen renewed (client-go's default). Default `15`. */
  readonly leaseDuration: number;
  /** Seconds a holder may go without renewing before it stops acting. Default `10`. */
  readonly renewDeadline: number;
  /** Seconds between attempts to acquire or renew. Default `2`. */
  readonly retryPeriod: number;
  /**
   * What a sharded replica watches of each resource. `"own-shards"`: only the objects of the
   * ranges it runs (the server filters where it can; the watch restarts when the ranges move);
   * its in-memory indices then hold only its share. `"all"`: every object, as one replica would
   * (complete indices on every replica, N times the traffic). `"auto"` (the default): own shards
   * for resources without `on.index` handlers, all for those with them, so that an index is
   * always complete. Only used in the `"sharding"` mode.
   */
  readonly watch: "auto" | "own-shards" | "all";
}

/** List-and-watch requests. */
export interface WatchingSettings {
  /** Seconds sent as the watch request's `timeoutSeconds`; `null` obeys the server. Default `null`. */
  readonly serverTimeout: number | null;
  /** Seconds of the client's total timeout for a watch request; `null` is none. Default `null`. */
  readonly clientTimeout: number | null;
  /** Seconds of the connect timeout for a watch request; `null` is none. Default `null`. */
  readonly connectTimeout: number | null;
  /** Seconds to pause between watch reconnections. Default `0.1`. */
  readonly reconnectBackoff: number;
  /** Seconds of silence (no event, no bookmark) after which a watch stream is reconnected. Default `70`. */
  readonly inactivityTimeout: number;
}

/** Per-object event queues and their workers. */
export interface QueueingSettings {
  /**
   * Maximum concurrent per-object workers per watcher; `null` is unlimited. Independently of it,
   * at most `cycleLimit` objects are mid-cycle at once. Default `null`.
   */
  readonly workerLimit: number | null;
  /**
   * Maximum objects mid-cycle at once per watcher, their handlers, sleeps and delays not counted
   * (see the queues in docs/behaviour/watching.md); `null` is unlimited (as in Kopf). Further
   * objects' events wait in their queues, which bounds the memory of a burst. Default `32`.
   */
  readonly cycleLimit: number | null;
  /**
   * Whether the cycle limit adapts to how busy the process is: while cycles wait for a slot, an
   * event loop busy 95% of the time or more lowers it by an eighth of `cycleLimit` every 100 ms (to
   * half of `cycleLimit` at the least), and one busy less than 85% of the time raises it as much
   * (to `cycleLimit` at the most). In a burst that the process cannot serve faster, cycles beyond
   * what it serves only hold memory. Default `true`.
   */
  readonly adaptiveCycleLimit: boolean;
  /** Seconds an idle worker waits for new events before it exits. Default `5`. */
  readonly idleTimeout: number;
  /** Seconds a worker gets to drain its queue when its watcher exits. Default `2`. */
  readonly exitTimeout: number;
  /**
   * Seconds to wait after consecutive unexpected framework errors for one object; the last delay
   * repeats when the sequence is exhausted. Default `[1, 1, 2, 3, 5, 8, …, 377, 610]`.
   */
  readonly errorDelays: ReadonlyArray<number>;
  /**
   * Seconds; kept only for compatibility, it affects nothing. Default `0.1`.
   * @deprecated Time-based event batching was removed. Please stop configuring it.
   */
  readonly batchWindow: number;
}

/** Runtime observation of namespaces and custom resource definitions. */
export interface ScanningSettings {
  /** Serve only what exists at startup: no namespace/CRD observation. Default `false`. */
  readonly disabled: boolean;
}

/** Admission webhooks. */
export interface AdmissionSettings {
  /**
   * The webhook server or tunnel that receives admission requests (an object from the admission
   * package); `null` starts none. Default `null`.
   */
  readonly server: object | null;
  /** Name of the managed `Validating/MutatingWebhookConfiguration`; `null` manages none. Default `null`. */
  readonly managed: string | null;
}

/** Execution of handlers. */
export interface ExecutionSettings {
  /** Seconds before a handler that failed with an arbitrary error is retried. Default `60`. */
  readonly defaultBackoff: number;
  /**
   * Limit of synchronous (non-Promise, non-Effect) handlers running at the same time; `null` is
   * unlimited. Node has no thread pool for JavaScript handlers, so this replaces Kopf's
   * `executor`/`max_workers` pair: it only bounds concurrency. At least `1`. Default `null`.
   */
  readonly maxWorkers: number | null;
}

/** Requests to the Kubernetes API (other than watches). */
export interface NetworkingSettings {
  /**
   * Seconds of the total timeout of a regular API request (its exchange with the server, not a
   * wait for `rateLimit`); `null` is none. Default `300`.
   */
  readonly requestTimeout: number | null;
  /** Seconds of the connect timeout of an API request; `null` is none. Default `null`. */
  readonly connectTimeout: number | null;
  /**
   * Seconds to wait before each retry of a failed API request; their count is the number of
   * retries. A single number is accepted as a one-element list. Default `[1, 1, 2, 3, 5, 8, 13, 21]`.
   */
  readonly errorBackoffs: ReadonlyArray<number>;
  /** Always wait for the server's `Retry-After`, even when it is shorter than the backoff. Default `false`. */
  readonly enforceRetryAfter: boolean;
  /** Honour the proxy environment variables and `~/.netrc`. Default `false`. */
  readonly trustEnv: boolean;
  /**
   * A client-side rate limit for API requests: a token bucket of `burst` requests refilled at
   * `qps` per second (client-go's model). Not in Kopf; off by default (`null`), like
   * controller-runtime. Example: `{ qps: 20, burst: 30 }`.
   */
  readonly rateLimit: { readonly qps: number; readonly burst: number } | null;
}

/** How Kopf keeps its state on the objects. */
export interface PersistenceSettings {
  /** The finalizer that blocks deletion while handlers need it. Default `"kopf.zalando.org/KopfFinalizerMarker"`. */
  readonly finalizer: string;
  /** Where handler progress is kept between cycles (docs/behaviour/progress.md#storages). Default `SmartProgressStorage.makeDefault()`. */
  readonly progressStorage: ProgressStorage.ProgressStorage;
  /** Where the last handled essence is kept (docs/behaviour/causes.md#last-handled-configuration). Default `AnnotationsDiffBaseStorage.makeDefault()`. */
  readonly diffbaseStorage: DiffBaseStorage.DiffBaseStorage;
  /** Seconds to wait for the resource version of our own patch to arrive; `0` disables. Default `5`. */
  readonly consistencyTimeout: number;
}

/** Daemons and timers. */
export interface BackgroundSettings {
  /** Seconds between checks of a stopping daemon that has no cancellation timeout. Default `60`. */
  readonly cancellationPolling: number;
  /** Seconds to wait for a daemon to exit instantly when stopped; `null` uses zero-time cycles. Default `null`. */
  readonly instantExitTimeout: number | null;
  /** Zero-time yields given to a stopped daemon to exit instantly; `null` gives none. Default `10`. */
  readonly instantExitZeroTimeCycles: number | null;
}

/** The whole settings tree of one operator. */
export interface OperatorSettings {
  readonly process: ProcessSettings;
  readonly posting: PostingSettings;
  readonly peering: PeeringSettings;
  readonly scaling: ScalingSettings;
  readonly watching: WatchingSettings;
  readonly queueing: QueueingSettings;
  readonly scanning: ScanningSettings;
  readonly admission: AdmissionSettings;
  readonly execution: ExecutionSettings;
  readonly networking: NetworkingSettings;
  readonly persistence: PersistenceSettings;
  readonly background: BackgroundSettings;
}
