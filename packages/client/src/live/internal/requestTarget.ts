/**
 * Where a transport request goes: the server's URL, the path on it (the server URL's own path
 * prefix, if any, then the request's path and query), and the line that names the request in
 * errors. Shared by the live transports.
 */
import type { TransportRequest } from "../../KubeTransport.ts";

/** A request's target. */
export interface RequestTarget {
  readonly server: URL;
  readonly path: string;
  /** `METHOD origin/path`, for error messages. */
  readonly what: string;
}

/**
 * The target of `request`.
 *
 * @example
 * ```ts
 * targetOf({ method: "GET", path: "/api/v1/pods", headers: {}, connection: { server: "https://h/k8s/", priority: 0, trustEnv: false } }).path // "/k8s/api/v1/pods"
 * ```
 */
export const targetOf = (request: TransportRequest): RequestTarget => {
  const server = new URL(request.connection.server);
  const path = server.pathname.replace(/\/+$/, "") + request.path;
  return { server, path, what: `${request.method} ${server.origin}${path}` };
};
