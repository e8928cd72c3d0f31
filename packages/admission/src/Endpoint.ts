/**
 * Where a webhook server is reached (docs/behaviour/admission.md#servers-and-tunnels): the accessible form of its listening address,
 * the URL it reports to the API server (IPv6 in brackets, default ports omitted), and the names
 * its self-signed certificate must cover (host names and IPs, normalised, unspecified IPs
 * dropped; the common name). Pure.
 */
import type { CertificateNames } from "@kopf/client";

/** What the reported URL is made of. */
export interface UrlParts {
  readonly scheme: "https" | "http";
  /** The explicit host option (or the server class's default host); `undefined` ⇒ the address. */
  readonly host?: string | undefined;
  /** The listening address; `undefined` ⇒ all interfaces. */
  readonly addr?: string | undefined;
  readonly port: number;
  /** The path prefix of the webhooks (e.g. `/webhooks`); `undefined` ⇒ none. */
  readonly path?: string | undefined;
}

/**
 * How a listening address is reached from the same machine: none ⇒ `localhost`, `0.0.0.0` ⇒
 * `127.0.0.1`, `::` ⇒ `::1`.
 *
 * @example
 * Endpoint.accessibleAddr("0.0.0.0") // "127.0.0.1"
 */
export const accessibleAddr = (addr: string | undefined): string => {
  if (addr === undefined || addr === "") return "localhost";
  const ip = normalizeIp(addr);
  if (ip === "0.0.0.0") return "127.0.0.1";
  if (ip === "::") return "::1";
  return addr;
};

/**
 * The normalised text of an IP address, or `undefined` for a host name.
 *
 * @example
 * Endpoint.normalizeIp("0:0:0:0:0:0:0:1") // "::1"
 * Endpoint.normalizeIp("example.com") // undefined
 */
export const normalizeIp = (text: string): string | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(bare)) {
    const octets = bare.split(".").map(Number);
    return octets.every((o) => o <= 255) ? octets.join(".") : undefined;
  }
  if (!bare.includes(":") || !/^[0-9a-fA-F:.]+$/.test(bare)) return undefined;
  const parsed = URL.canParse(`http://[${bare}]/`) ? new URL(`http://[${bare}]/`).hostname : undefined;
  return parsed?.slice(1, -1);
};

/**
 * The URL the server reports: `scheme://host[:port]/path`, the port omitted when it is the
 * scheme's default, IPv6 hosts in brackets.
 *
 * @example
 * Endpoint.url({ scheme: "https", addr: "::", port: 443, path: "/hooks" }) // "https://[::1]/hooks"
 */
export const url = (parts: UrlParts): string => {
  const host = parts.host ?? accessibleAddr(parts.addr);
  const ip = normalizeIp(host);
  const shown = ip?.includes(":") ? `[${ip}]` : host;
  const defaultPort = parts.scheme === "https" ? 443 : 80;
  const port = parts.port === defaultPort ? "" : `:${parts.port}`;
  const path = parts.path === undefined || parts.path === "" ? "" : `/${parts.path.replace(/^\/+/, "")}`;
  return `${parts.scheme}://${shown}${port}${path}`;
};

/** The names of a self-signed serving certificate (defined with the certificate code). */
export type { CertificateNames };

const UNSPECIFIED: ReadonlySet<string> = new Set(["0.0.0.0", "::"]);

/**
 * The names a server's self-signed certificate covers: the host (or the accessible address),
 * the accessible address, and the extra SANs; IPs normalised and unspecified ones dropped; the
 * common name is the first host name, else the first IP.
 *
 * @example
 * Endpoint.certificateNames({ host: "host.k3d.internal", addr: "0.0.0.0" })
 * // { commonName: "host.k3d.internal", dnsNames: ["host.k3d.internal", "127.0.0.1"], ipAddresses: ["127.0.0.1"] }
 */
export const certificateNames = (options: {
  readonly host?: string | undefined;
  readonly addr?: string | undefined;
  readonly extraSans?: ReadonlyArray<string> | undefined;
}): CertificateNames => {
  const accessible = accessibleAddr(options.addr);
  const given = [options.host ?? accessible, accessible, ...(options.extraSans ?? [])];
  const names: Array<string> = [];
  const ips: Array<string> = [];
  for (const name of given) {
    const ip = normalizeIp(name);
    if (ip === undefined) {
      if (name !== "" && !names.includes(name)) names.push(name);
    } else if (!UNSPECIFIED.has(ip) && !ips.includes(ip)) {
      ips.push(ip);
    }
  }
  const commonName = names[0] ?? ips[0] ?? "localhost";
  return { commonName, dnsNames: [...names, ...ips], ipAddresses: ips };
};
