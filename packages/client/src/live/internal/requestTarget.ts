/**
 * Where a transport request goes: the server's URL, the path on it (the server URL's own path
 * prefix, if any, then the request's path and query), and the line that names the request in
 * errors. Shared by the live transports.
 */
import type { TransportRequest } from "../../KubeTransport.ts";

/** The parts of a server URL a request needs (parsed once per server, not per request). */
export interface ServerUrl {
  readonly protocol: string;
  readonly origin: string;
  /** The host name, an IPv6 address without its brackets. */
  readonly hostname: string;
  readonly port: string;
  /** The `host` header for it: the name (an IPv6 address in brackets) and a port other than the scheme's. */
  readonly host: string;
  /** The server URL's own path prefix, without trailing slashes. */
  readonly prefix: string;
}

/** A request's target. */
export interface RequestTarget {
  readonly server: ServerUrl;
  readonly path: string;
  /** `METHOD origin/path`, for error messages. */
  readonly what: string;
}

/** Parsed servers, by their URL as configured: a handful per process. */
const servers = new Map<string, ServerUrl>();
const SERVERS_KEPT = 64;

const serverOf = (text: string): ServerUrl => {
  const known = servers.get(text);
  if (known !== undefined) return known;
  const url = new URL(text);
  const server: ServerUrl = {
    protocol: url.protocol,
    origin: url.origin,
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port,
    host: url.host,
    prefix: url.pathname.replace(/\/+$/, ""),
  };
  if (servers.size >= SERVERS_KEPT) servers.clear();
  servers.set(text, server);
  return server;
};

/**
 * The target of `request`.
 *
 * @example
 * ```ts
 * targetOf({ method: "GET", path: "/api/v1/pods", headers: {}, connection: { server: "https://h/k8s/", priority: 0, trustEnv: false } }).path // "/k8s/api/v1/pods"
 * ```
 */
export const targetOf = (request: TransportRequest): RequestTarget => {
  const server = serverOf(request.connection.server);
  const path = server.prefix + request.path;
  return { server, path, what: `${request.method} ${server.origin}${path}` };
};
