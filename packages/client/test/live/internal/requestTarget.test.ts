/**
 * requestTarget: where a transport request goes (the server URL's parts, the host header for it,
 * its path prefix, the line naming the request in errors), and the pool keys the live transports
 * look their connections up by.
 */
import type { ConnectionInfo } from "@kopf/client";
import { describe, expect, it } from "vitest";
import { targetOf } from "../../../src/live/internal/requestTarget.ts";
import { poolKey } from "../../../src/live/TransportOptions.ts";

const connection = (server: string, extra: Partial<ConnectionInfo.ConnectionInfo> = {}) => ({
  server,
  priority: 0,
  trustEnv: false,
  ...extra,
});

describe("targetOf", () => {
  it.each([
    {
      server: "https://h",
      path: "/api/v1/pods",
      expected: {
        hostname: "h",
        port: "",
        protocol: "https:",
        path: "/api/v1/pods",
        what: "GET https://h/api/v1/pods",
      },
    },
    {
      server: "https://h:6443/k8s/",
      path: "/api/v1/pods?watch=true",
      expected: {
        hostname: "h",
        port: "6443",
        protocol: "https:",
        path: "/k8s/api/v1/pods?watch=true",
        what: "GET https://h:6443/k8s/api/v1/pods?watch=true",
      },
    },
    {
      server: "http://[::1]:8080//",
      path: "/version",
      expected: {
        hostname: "::1",
        port: "8080",
        protocol: "http:",
        path: "/version",
        what: "GET http://[::1]:8080/version",
      },
    },
  ])("$server + $path", ({ server, path, expected }) => {
    const target = targetOf({
      method: "GET",
      path,
      headers: {},
      connection: connection(server),
      body: undefined,
    });
    expect({
      hostname: target.server.hostname,
      port: target.server.port,
      protocol: target.server.protocol,
      path: target.path,
      what: target.what,
    }).toEqual(expected);
  });

  it.each([
    ["https://h", "h"],
    ["https://h:8443", "h:8443"],
    ["https://[::1]:6443", "[::1]:6443"],
    ["http://10.0.0.1", "10.0.0.1"],
  ])("the host header of %s is %s", (server, host) => {
    const target = targetOf({ method: "GET", path: "/", headers: {}, connection: connection(server) });
    expect(target.server.host).toBe(host);
  });

  it("parses a server once, however many requests go to it", () => {
    const request = {
      method: "GET" as const,
      path: "/a",
      headers: {},
      connection: connection("https://once:1"),
      body: undefined,
    };
    expect(targetOf(request).server).toBe(targetOf({ ...request, path: "/b" }).server);
  });
});

describe("poolKey", () => {
  const info = connection("https://h", {
    caData: "-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n",
  });

  it("is the same string for the same info and kind of pool, and differs between kinds", () => {
    expect(poolKey(info, 1000, false)).toBe(poolKey(info, 1000, false));
    expect(poolKey(info, 1000, false)).not.toBe(poolKey(info, 1000, true));
    expect(poolKey(info, 1000, false)).not.toBe(poolKey(info, 2000, false));
  });

  it("is equal for equal infos (another object with the same TLS material) and differs with the material", () => {
    expect(poolKey({ ...info, token: "t" }, 1000, false)).toBe(poolKey(info, 1000, false));
    expect(poolKey({ ...info, caData: "other" }, 1000, false)).not.toBe(poolKey(info, 1000, false));
  });
});
