/**
 * The connection-group name of an agent that serves one server. Node.js's agents name the group
 * a request's socket belongs to from the request's options at every request (and again for every
 * new socket): the host, the port and some twenty TLS options joined with `:`, a new string each
 * time, ~4 KiB of garbage per request for an HTTPS agent. The transport's agents each serve one
 * server with one TLS identity, so the name changes only with the fields a request sets itself
 * (the host, the port, the server name); it is computed again only when one of them differs
 * from the last request's.
 */
import type * as Http from "node:http";

/** The options of a request that Node.js's `getName` reads and that vary between requests. */
interface NamedOptions {
  readonly host?: string | null | undefined;
  readonly port?: number | string | null | undefined;
  readonly servername?: string | undefined;
  readonly localAddress?: string | undefined;
  readonly family?: number | undefined;
}

/**
 * Makes `agent.getName` answer the last name again while the host, port, server name, local
 * address and family stay the same; returns the agent.
 *
 * @example
 * const agent = rememberingNames(new https.Agent({ keepAlive: true }))
 * agent.getName({ host: "10.0.0.1", port: 6443 }) // computed once, then answered from memory
 */
export const rememberingNames = <A extends Http.Agent>(agent: A): A => {
  const compute = agent.getName.bind(agent) as (options?: NamedOptions) => string;
  let last: NamedOptions | undefined;
  let name = "";
  agent.getName = ((options: NamedOptions = {}) => {
    if (
      last === undefined ||
      options.host !== last.host ||
      options.port !== last.port ||
      options.servername !== last.servername ||
      options.localAddress !== last.localAddress ||
      options.family !== last.family
    ) {
      name = compute(options);
      last = {
        host: options.host,
        port: options.port,
        servername: options.servername,
        localAddress: options.localAddress,
        family: options.family,
      };
    }
    return name;
  }) as A["getName"];
  return agent;
};
