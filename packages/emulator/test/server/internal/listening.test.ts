// The server's socket lifecycle (src/server/internal/listening.ts): the URL clients reach it by,
// a refusal to listen that names the address and why, and closing that cuts open connections.
import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { describe, expect, it } from "vitest";
import * as Listening from "../../../src/server/internal/listening.ts";

describe("Listening.urlOf", () => {
  it.each([
    [true, "127.0.0.1", 443, "https://127.0.0.1:443"],
    [false, "127.0.0.1", 8080, "http://127.0.0.1:8080"],
    // A wildcard bind is advertised as loopback, which the serving certificate covers.
    [true, "0.0.0.0", 40123, "https://127.0.0.1:40123"],
    [true, "::", 40123, "https://[::1]:40123"],
    [true, "::1", 40123, "https://[::1]:40123"],
    [true, "localhost", 1, "https://localhost:1"],
  ])("tls=%s host=%s port=%s is %s", (tls, host, port, url) => {
    expect(Listening.urlOf(tls, host, port)).toBe(url);
  });
});

describe("Listening.listen and close", () => {
  it("listens on a free port, refuses a taken one naming it, and cuts connections on close", async () => {
    const first = createServer((_, res) => res.end());
    const second = createServer();
    const sockets = new Set<Socket>();
    first.on("connection", (socket) => sockets.add(socket));
    const port = await Effect.runPromise(Listening.listen(first, 0, "127.0.0.1"));
    expect(port).toBeGreaterThan(0);

    const taken = await Effect.runPromiseExit(Listening.listen(second, port, "127.0.0.1"));
    expect(Exit.isFailure(taken)).toBe(true);
    if (Exit.isFailure(taken)) {
      const error = taken.cause.reasons.find((reason) => reason._tag === "Fail")?.error;
      expect(error?.reason).toBe("Listen");
      expect(error?.message).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    }

    const client = connect(port, "127.0.0.1");
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    await new Promise<void>((resolve) => client.once("connect", () => resolve()));
    await Effect.runPromise(Listening.close(first, sockets));
    await closed;
    expect(first.listening).toBe(false);
    // Closing a server that no longer listens completes at once.
    await Effect.runPromise(Listening.close(first, sockets));
  });
});
