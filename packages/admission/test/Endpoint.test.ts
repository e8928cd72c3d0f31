/** Reported URLs and certificate names of the webhook servers (docs/behaviour/admission.md#servers-and-tunnels). */
import { assert, describe, it } from "@effect/vitest";
import * as fc from "fast-check";
import { Endpoint } from "../src/index.ts";

describe("Endpoint", () => {
  it.each([
    [undefined, "localhost"],
    ["", "localhost"],
    ["0.0.0.0", "127.0.0.1"],
    ["::", "::1"],
    ["0:0:0:0:0:0:0:0", "::1"],
    ["10.0.0.1", "10.0.0.1"],
    ["example.com", "example.com"],
  ] as const)("accessibleAddr(%s) = %s", (addr, expected) => {
    assert.strictEqual(Endpoint.accessibleAddr(addr), expected);
  });

  it.each([
    [{ scheme: "https", port: 443 }, "https://localhost"],
    [{ scheme: "https", port: 80 }, "https://localhost:80"],
    [{ scheme: "http", port: 80 }, "http://localhost"],
    [{ scheme: "http", port: 443 }, "http://localhost:443"],
    [{ scheme: "https", port: 8443, addr: "0.0.0.0" }, "https://127.0.0.1:8443"],
    [{ scheme: "https", port: 8443, addr: "::" }, "https://[::1]:8443"],
    [{ scheme: "https", port: 8443, addr: "fe80::1" }, "https://[fe80::1]:8443"],
    [
      { scheme: "https", port: 8443, host: "host.k3d.internal", addr: "::" },
      "https://host.k3d.internal:8443",
    ],
    [{ scheme: "https", port: 8443, host: "::1" }, "https://[::1]:8443"],
    [{ scheme: "https", port: 8443, path: "/p1/p2" }, "https://localhost:8443/p1/p2"],
    [{ scheme: "https", port: 8443, path: "p1" }, "https://localhost:8443/p1"],
  ] as const)("url(%o) = %s", (parts, expected) => {
    assert.strictEqual(Endpoint.url(parts as Endpoint.UrlParts), expected);
  });

  it.each([
    [{}, { commonName: "localhost", dnsNames: ["localhost"], ipAddresses: [] }],
    [{ addr: "0.0.0.0" }, { commonName: "127.0.0.1", dnsNames: ["127.0.0.1"], ipAddresses: ["127.0.0.1"] }],
    [
      { host: "host.k3d.internal", addr: "::" },
      { commonName: "host.k3d.internal", dnsNames: ["host.k3d.internal", "::1"], ipAddresses: ["::1"] },
    ],
    [
      { host: "h", extraSans: ["0.0.0.0", "::", "10.0.0.1", "extra.name", "0:0::1"] },
      {
        commonName: "h",
        dnsNames: ["h", "localhost", "extra.name", "10.0.0.1", "::1"],
        ipAddresses: ["10.0.0.1", "::1"],
      },
    ],
  ] as const)("certificateNames(%o)", (options, expected) => {
    assert.deepStrictEqual(Endpoint.certificateNames(options), expected);
  });

  it("property: URLs always parse and keep the port unless it is the default", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("https", "http"),
        fc.integer({ min: 1, max: 65535 }),
        fc.option(fc.constantFrom("0.0.0.0", "::", "127.0.0.1", "::1", "localhost", "10.1.2.3"), {
          nil: undefined,
        }),
        (scheme, port, addr) => {
          const text = Endpoint.url({ scheme: scheme as "https" | "http", port, addr });
          const parsed = new URL(text);
          const expectedPort =
            (scheme === "https" && port === 443) || (scheme === "http" && port === 80) ? "" : String(port);
          return parsed.port === expectedPort && parsed.protocol === `${scheme}:`;
        },
      ),
    );
  });
});
