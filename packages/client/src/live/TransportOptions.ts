/**
 * How the live transports pool their connections: the options callers tune (keep-alive, how many
 * connections, connect timeout, how many pools) and the defaults both transports apply.
 */
import * as ConnectionInfo from "../ConnectionInfo.ts";
import type { TransportRequest } from "../KubeTransport.ts";

/** Pool tuning of a live transport. @category models */
export interface TransportOptions {
  /** Milliseconds an idle connection is kept open. Default 60 000. */
  readonly keepAliveTimeout?: number | undefined;
  /** The most connections per server for watch streams; `null` for no limit (each open watch holds one). Default `null`. */
  readonly connections?: number | null | undefined;
  /**
   * The most connections per server for plain (non-streaming) requests; `null` for no limit.
   * Default 32: enough to keep an API server busy, few enough that a burst of thousands of
   * objects does not open (and keep alive) thousands of TLS connections.
   */
  readonly requestConnections?: number | null | undefined;
  /** Milliseconds to connect when a request does not say. Default 30 000. */
  readonly connectTimeout?: number | undefined;
  /**
   * How many pools (server × TLS identity × streams or requests) are kept; beyond that the least
   * recently used one is closed gracefully (its requests finish first). Credentials whose TLS
   * material changes (e.g. short-lived client certificates from an exec plugin) would otherwise
   * pile pools up. Default 32 (16 identities with both kinds of pool).
   */
  readonly maxPools?: number | undefined;
}

const DEFAULT_REQUEST_CONNECTIONS = 32;

/**
 * The most connections of a pool; `null` for no limit.
 *
 * @example
 * ```ts
 * connectionsOf({}, false) // 32
 * connectionsOf({}, true) // null
 * ```
 */
export const connectionsOf = (options: TransportOptions, streaming: boolean): number | null =>
  streaming
    ? (options.connections ?? null)
    : options.requestConnections === undefined
      ? DEFAULT_REQUEST_CONNECTIONS
      : options.requestConnections;

/**
 * Milliseconds an idle connection is kept.
 *
 * @example
 * ```ts
 * keepAliveOf({}) // 60000
 * ```
 */
export const keepAliveOf = (options: TransportOptions): number => options.keepAliveTimeout ?? 60_000;

/**
 * How many pools are kept.
 *
 * @example
 * ```ts
 * maxPoolsOf({ maxPools: 0 }) // 1
 * ```
 */
export const maxPoolsOf = (options: TransportOptions): number => Math.max(1, options.maxPools ?? 32);

/**
 * Milliseconds to connect for one request: its own, else the transport's, else 30 s.
 *
 * @example
 * ```ts
 * connectTimeoutOf({ connectTimeout: 500 } as TransportRequest, {}) // 500
 * ```
 */
export const connectTimeoutOf = (request: TransportRequest, options: TransportOptions): number =>
  request.connectTimeout ?? options.connectTimeout ?? 30_000;

const poolKeys = new WeakMap<ConnectionInfo.ConnectionInfo, Map<string, string>>();

/**
 * The key of the pool a request goes to: server and TLS identity, connect timeout, and whether
 * it is a stream (streams hold their connection, so they never share a pool with requests).
 *
 * @example
 * ```ts
 * poolKey(info, 30_000, true) // "…|30000|stream"
 * ```
 */
export const poolKey = (
  info: ConnectionInfo.ConnectionInfo,
  connectTimeout: number,
  streaming: boolean,
): string => {
  // Remembered per info: a new key string would be hashed whole (TLS material included) at every
  // look-up of the pools.
  let keys = poolKeys.get(info);
  if (keys === undefined) {
    keys = new Map();
    poolKeys.set(info, keys);
  }
  const variant = `${connectTimeout}|${streaming ? "stream" : "request"}`;
  const known = keys.get(variant);
  if (known !== undefined) return known;
  const key = `${ConnectionInfo.transportKey(info)}|${variant}`;
  keys.set(variant, key);
  return key;
};
