// rememberingNames: the agent's connection-group names stay Node.js's own, computed once while
// the fields a request sets itself stay the same, and again when one of them changes.
import * as http from "node:http";
import * as https from "node:https";
import { describe, expect, it } from "vitest";
import { rememberingNames } from "../../../src/live/internal/agentName.ts";

const counted = <A extends http.Agent>(agent: A) => {
  const calls: Array<unknown> = [];
  const original = agent.getName.bind(agent);
  agent.getName = ((options?: Parameters<http.Agent["getName"]>[0]) => {
    calls.push(options);
    return original(options);
  }) as A["getName"];
  return { agent: rememberingNames(agent), calls };
};

describe("rememberingNames", () => {
  it.each([
    ["http", () => new http.Agent({ keepAlive: true })],
    ["https", () => new https.Agent({ keepAlive: true, rejectUnauthorized: false, servername: "kube" })],
  ] as const)("answers Node.js's own name for a %s agent", (_, make) => {
    const plain = make();
    const remembering = rememberingNames(make());
    for (const options of [
      { host: "10.0.0.1", port: 6443 },
      { host: "10.0.0.1", port: 6443, servername: "api.local" },
      { host: "10.0.0.2", port: 443, localAddress: "127.0.0.1", family: 4 },
      {},
    ]) {
      expect(remembering.getName(options)).toBe(plain.getName(options));
    }
  });

  it("computes the name once while host, port and server name stay the same", () => {
    const { agent, calls } = counted(new https.Agent({ keepAlive: true }));
    const first = agent.getName({ host: "10.0.0.1", port: 6443 });
    for (let i = 0; i < 5; i++) expect(agent.getName({ host: "10.0.0.1", port: 6443 })).toBe(first);
    expect(calls).toHaveLength(1);
  });

  it.each([
    ["host", { host: "10.0.0.9", port: 6443 }],
    ["port", { host: "10.0.0.1", port: 6444 }],
    ["server name", { host: "10.0.0.1", port: 6443, servername: "other" }],
    ["local address", { host: "10.0.0.1", port: 6443, localAddress: "127.0.0.2" }],
    ["family", { host: "10.0.0.1", port: 6443, family: 6 }],
  ] as const)("computes it again when the %s changes", (_, changed) => {
    const { agent, calls } = counted(new https.Agent({ keepAlive: true }));
    const first = agent.getName({ host: "10.0.0.1", port: 6443 });
    const second = agent.getName(changed);
    expect(second).not.toBe(first);
    expect(calls).toHaveLength(2);
    expect(agent.getName({ host: "10.0.0.1", port: 6443 })).toBe(first);
    expect(calls).toHaveLength(3);
  });
});
