/**
 * Identities of peering operators (Kopf's `detect_own_id`, docs/behaviour/peering.md#presence-records, docs/behaviour/peering.md), as a pure
 * function of what the edge code gathers (`node/Environment.ts`): `POD_ID` wins; otherwise
 * `user@host/YYYYmmddHHMMSS/rnd` for operators (UTC time, 3 random characters) or `user@host`
 * for `freeze`/`resume` ("manual"). The host is the most descriptive hostname: a dotted name
 * that is not an IP address nor `.arpa`, else a plain name other than `localhost`, else the
 * system's hostname; `.local`/`.localdomain` suffixes are stripped repeatedly.
 */
import { IsoTime } from "@kopf/structs";

/** The characters of the random suffix (Kopf's alphabet: no `g`). */
export const ALPHABET = "abcdefhijklmnopqrstuvwxyz0123456789";

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const isIp = (name: string): boolean => IPV4.test(name) || name.includes(":");

const strip = (name: string): string => {
  let current = name;
  for (;;) {
    const next = current.replace(/\.(localdomain|local)$/, "");
    if (next === current) return current;
    current = next;
  }
};

/**
 * The most descriptive of the host's names (the first is the system's hostname).
 *
 * @example
 * ```ts
 * Identity.descriptiveHostname(["box", "box.example.com", "10.0.0.1"]) // "box.example.com"
 * Identity.descriptiveHostname(["box.local.localdomain"])              // "box"
 * ```
 */
export const descriptiveHostname = (names: ReadonlyArray<string>): string => {
  const candidates = names.map(strip).filter((n) => n !== "");
  const dotted = candidates.find((n) => n.includes(".") && !isIp(n) && !n.endsWith(".arpa"));
  if (dotted !== undefined) return dotted;
  const plain = candidates.find((n) => !n.includes(".") && !isIp(n) && n !== "localhost");
  return plain ?? candidates[0] ?? "localhost";
};

/** What the identity is made of. */
export interface IdentitySources {
  readonly podId: string | undefined;
  readonly user: string;
  readonly hostnames: ReadonlyArray<string>;
  readonly now: IsoTime.Micros;
  /** Three random characters (from {@link ALPHABET}). */
  readonly random: string;
}

const stamp = (now: IsoTime.Micros): string => IsoTime.format(now).slice(0, 19).replace(/[-T:]/g, "");

/**
 * The operator's (or, `manual`, the freezing user's) identity.
 *
 * @example
 * ```ts
 * Identity.make({ podId: undefined, user: "me", hostnames: ["box"], now, random: "abc" }, false)
 * // "me@box/20201231235959/abc"
 * ```
 */
export const make = (sources: IdentitySources, manual: boolean): string => {
  if (sources.podId !== undefined) return sources.podId;
  const base = `${sources.user}@${descriptiveHostname(sources.hostnames)}`;
  return manual ? base : `${base}/${stamp(sources.now)}/${sources.random}`;
};
