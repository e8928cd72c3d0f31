/**
 * Kopf's `WebhookNgrokTunnel`: an insecure local webhook server exposed through an
 * ngrok tunnel, for clusters that cannot reach the developer's machine. It runs an ngrok binary
 * that is already installed (the `binary` option, else `ngrok` on `PATH`) — it never downloads
 * one; without it, it fails with a clear error. The reported URL is the tunnel's public HTTPS
 * URL plus the path (no CA bundle: ngrok's certificate is publicly trusted); the tunnel is
 * restarted when the local endpoint changes, and stopped with the server.
 */
import type { ChildProcess } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import * as Config from "effect/Config";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Queue from "effect/Queue";
import * as Stream from "effect/Stream";
import type { ClientConfig } from "../ClientConfig.ts";
import type { WebhookFn } from "../Serving.ts";
import { WebhookServerError } from "../WebhookServerProtocol.ts";
import * as WebhookServer from "./WebhookServer.ts";

/** Options of the ngrok tunnel. */
export interface NgrokOptions {
  /**
   * The local server's address and port (default: `127.0.0.1` and a free port). The local server
   * speaks plain HTTP, so it listens on the loopback interface unless another address is given.
   */
  readonly addr?: string | undefined;
  readonly port?: number | undefined;
  readonly path?: string | undefined;
  /** The ngrok auth token (default: ngrok's own configuration). */
  readonly token?: string | undefined;
  readonly region?: string | undefined;
  /** The ngrok binary: a path, or a name looked up on `PATH` (default `ngrok`). */
  readonly binary?: string | undefined;
  /** Seconds to wait for the tunnel to come up. Default 30. */
  readonly startTimeout?: number | undefined;
}

const executable = (path: string) =>
  Effect.promise(() =>
    access(path, constants.X_OK).then(
      () => true,
      () => false,
    ),
  );

/**
 * The path of an installed binary (absolute/relative paths as given; bare names on `PATH`).
 *
 * @example
 * const path = yield* WebhookNgrokTunnel.findBinary("ngrok") // "/usr/local/bin/ngrok" or a WebhookServerError
 */
export const findBinary = (binary: string): Effect.Effect<string, WebhookServerError> =>
  Effect.gen(function* () {
    // PATH from Effect's ConfigProvider (the process environment unless one is provided).
    const path = Option.getOrElse(
      yield* Config.option(Config.String("PATH")).pipe(Effect.orElseSucceed(Option.none)),
      () => "",
    );
    const candidates =
      isAbsolute(binary) || binary.includes("/")
        ? [binary]
        : path
            .split(delimiter)
            .filter((dir) => dir !== "")
            .map((dir) => join(dir, binary));
    for (const candidate of candidates) {
      if (yield* executable(candidate)) return candidate;
    }
    return yield* new WebhookServerError({
      reason: "Tunnel",
      message:
        `The ngrok binary ${JSON.stringify(binary)} is not installed or not executable. Install ngrok ` +
        "(https://ngrok.com/download) or pass its path as `binary`; it is never downloaded at run time.",
    });
  });

/** Starts ngrok for a local port and answers its public URL (the process lives in the scope). */
const startTunnel = (binary: string, upstream: string, options: NgrokOptions) =>
  Effect.acquireRelease(
    // Node.js's child_process is loaded only here: an operator without a tunnel never needs it.
    Effect.promise(() => import("node:child_process")).pipe(
      Effect.map(({ spawn }) =>
        spawn(
          binary,
          [
            "http",
            upstream,
            "--log",
            "stdout",
            "--log-format",
            "json",
            ...(options.token === undefined ? [] : ["--authtoken", options.token]),
            ...(options.region === undefined ? [] : ["--region", options.region]),
          ],
          { stdio: ["ignore", "pipe", "pipe"] },
        ),
      ),
    ),
    (child: ChildProcess) => Effect.sync(() => child.kill("SIGTERM")),
  ).pipe(
    Effect.flatMap((child) =>
      Effect.callback<string, WebhookServerError>((resume) => {
        let buffer = "";
        let errors = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          buffer += chunk.toString("utf8");
          const lines = buffer.split("\n");
          buffer = lines.pop() ?? "";
          for (const line of lines) {
            const url = publicUrlOf(line);
            if (url !== undefined) resume(Effect.succeed(url));
          }
        });
        child.stderr?.on("data", (chunk: Buffer) => {
          errors = `${errors}${chunk.toString("utf8")}`.slice(-2000);
        });
        child.once("error", (error) =>
          resume(
            Effect.fail(
              new WebhookServerError({ reason: "Tunnel", message: `ngrok failed: ${error.message}` }),
            ),
          ),
        );
        child.once("exit", (code) =>
          resume(
            Effect.fail(
              new WebhookServerError({
                reason: "Tunnel",
                message: `ngrok exited with code ${String(code)} before the tunnel started: ${errors.trim()}`,
              }),
            ),
          ),
        );
      }),
    ),
    Effect.timeoutOrElse({
      duration: Duration.seconds(options.startTimeout ?? 30),
      orElse: () =>
        Effect.fail(
          new WebhookServerError({ reason: "Tunnel", message: "The ngrok tunnel did not start in time." }),
        ),
    }),
  );

/**
 * The public HTTPS URL in one of ngrok's JSON log lines (`"msg":"started tunnel"`), if any.
 *
 * @example
 * WebhookNgrokTunnel.publicUrlOf('{"msg":"started tunnel","url":"https://ab12.ngrok.app"}') // "https://ab12.ngrok.app"
 */
export const publicUrlOf = (line: string): string | undefined => {
  if (!line.trim().startsWith("{")) return undefined;
  try {
    const record = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return record.msg === "started tunnel" &&
      typeof record.url === "string" &&
      record.url.startsWith("https://")
      ? record.url
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * An ngrok tunnel to an insecure local webhook server.
 *
 * @example
 * ```ts
 * settings.admission.server = WebhookNgrokTunnel.WebhookNgrokTunnel({ path: "/hooks", token: process.env.NGROK_TOKEN })
 * ```
 */
export const WebhookNgrokTunnel = (options: NgrokOptions = {}): WebhookServer.LocalServer => ({
  serve: (fn: WebhookFn) =>
    Stream.callback<ClientConfig, WebhookServerError>((queue) =>
      Effect.gen(function* () {
        const binary = yield* findBinary(options.binary ?? "ngrok");
        // Plain HTTP, so only on this machine unless asked otherwise: ngrok's agent runs here.
        const local = WebhookServer.make({
          addr: options.addr ?? "127.0.0.1",
          port: options.port,
          path: options.path,
          insecure: true,
        });
        const path = (options.path ?? "").replace(/\/+$/, "").replace(/^(?!\/)(?=.)/, "/");
        yield* Stream.runForEach(
          Stream.switchMap(local.serve(fn), (config) =>
            Stream.scoped(
              Stream.fromEffect(
                Effect.gen(function* () {
                  const local = new URL(config.url ?? "http://127.0.0.1");
                  const upstream = `${local.hostname}:${local.port || "80"}`;
                  const publicUrl = yield* startTunnel(binary, upstream, options);
                  yield* Effect.logInfo(`The ngrok tunnel is up: ${publicUrl} → ${config.url ?? ""}`);
                  yield* Queue.offer(queue, { url: `${publicUrl}${path}` });
                  return yield* Effect.never;
                }),
              ),
            ),
          ),
          () => Effect.void,
        );
      }),
    ),
});
