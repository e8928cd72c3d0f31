// Test support for the transport: a tiny echoing KubeEmulator (until tests switch to the real
// core) and a promise-based HTTP(S) client speaking to the emulator's server.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { type Agent, request as httpsRequest } from "node:https";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Queue from "effect/Queue";
import * as Ref from "effect/Ref";
import * as Stream from "effect/Stream";
import { type ApiResponse, KubeEmulator } from "../../src/api/Emulator.ts";
import { FaultInjector } from "../../src/control/FaultInjector.ts";
import { EmulatorServer, type EmulatorServerOptions } from "../../src/server/EmulatorServer.ts";

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Whether the request went over a kept-alive connection. */
  readonly reusedSocket: boolean;
}

export interface EchoProbe {
  readonly calls: Ref.Ref<ReadonlyArray<string>>;
  /** Chunks pushed here go to the open `/watch` stream. */
  readonly watchChunks: Queue.Queue<string>;
  readonly watchFinalized: Ref.Ref<number>;
}

const encoder = new TextEncoder();

/** A KubeEmulator that echoes every request as JSON; GET /watch streams what the probe pushes. */
export const echoEmulator = (probe: EchoProbe) =>
  Layer.succeed(KubeEmulator)(
    KubeEmulator.of({
      handle: (request) =>
        Effect.gen(function* () {
          yield* Ref.update(probe.calls, (calls) => [...calls, `${request.method} ${request.path}`]);
          if (request.path === "/watch") {
            return {
              _tag: "Streaming",
              status: 200,
              headers: { "content-type": "application/json" },
              body: Stream.fromQueue(probe.watchChunks).pipe(
                Stream.map((text) => encoder.encode(text)),
                Stream.ensuring(Ref.update(probe.watchFinalized, (n) => n + 1)),
              ),
            } satisfies ApiResponse;
          }
          const echo = {
            method: request.method,
            path: request.path,
            query: Object.fromEntries(request.query),
            headers: request.headers,
            body: request.body === undefined ? null : new TextDecoder().decode(request.body),
            user: request.user,
          };
          return {
            _tag: "Complete",
            status: 200,
            headers: { "content-type": "application/json" },
            body: encoder.encode(JSON.stringify(echo)),
          } satisfies ApiResponse;
        }),
      dropWatches: Ref.update(probe.calls, (calls) => [...calls, "dropWatches"]),
      setRootCa: () => Effect.void,
      compactHistory: Ref.update(probe.calls, (calls) => [...calls, "compactHistory"]),
      exportState: Effect.succeed({ resourceVersion: "1", objects: [] }),
      reader: { get: () => undefined, list: () => [], namespaceLabels: () => undefined },
      importState: () => Effect.void,
      apply: () => Effect.void,
    }),
  );

export const makeProbe = Effect.gen(function* () {
  return {
    calls: yield* Ref.make<ReadonlyArray<string>>([]),
    watchChunks: yield* Queue.unbounded<string>(),
    watchFinalized: yield* Ref.make(0),
  } satisfies EchoProbe;
});

/** The server over the echo emulator. */
export const echoServer = (probe: EchoProbe, options: EmulatorServerOptions = {}) =>
  EmulatorServer.layer(options).pipe(Layer.provide(Layer.merge(echoEmulator(probe), FaultInjector.layer)));

export interface CallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly cert?: { readonly certPem: string; readonly keyPem: string };
  readonly agent?: Agent;
  /** Write the body in pieces without a Content-Length (chunked). */
  readonly chunked?: boolean;
}

/** One HTTP(S) request to the server, trusting its CA. */
export const call = (server: EmulatorServer["Service"], path: string, options: CallOptions = {}) =>
  Effect.callback<Reply, Error>((resume) => {
    const target = new URL(path, server.url);
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined && options.chunked !== true)
      headers["content-length"] = String(Buffer.byteLength(options.body));
    const common = { method: options.method ?? "GET", headers };
    const onResponse = (res: import("node:http").IncomingMessage) => {
      const chunks: Array<Buffer> = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resume(
          Effect.succeed({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            reusedSocket: req.reusedSocket,
          }),
        ),
      );
      res.on("error", (error) => resume(Effect.fail(error)));
    };
    const req = server.tls
      ? httpsRequest(
          target,
          {
            ...common,
            ca: server.caPem,
            ...(options.agent === undefined ? { agent: false } : { agent: options.agent }),
            ...(options.cert === undefined ? {} : { cert: options.cert.certPem, key: options.cert.keyPem }),
          },
          onResponse,
        )
      : httpRequest(target, { ...common, agent: false }, onResponse);
    req.on("error", (error) => resume(Effect.fail(error)));
    if (options.body !== undefined) {
      if (options.chunked === true) {
        const body = Buffer.from(options.body);
        const step = 64 * 1024;
        for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
      } else req.write(options.body);
    }
    req.end();
  });

/** Parses a reply body as JSON. */
export const json = (reply: Reply): Record<string, unknown> =>
  JSON.parse(reply.body) as Record<string, unknown>;
