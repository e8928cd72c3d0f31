/**
 * The emulator server's socket lifecycle (edge code): its certificates (a new CA, or an earlier
 * run's kept so that its clients still trust it), listening on a port and reporting why it could
 * not, closing with every open connection cut at once (as when a real API server dies), and the
 * URL clients reach it by.
 */
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import * as Effect from "effect/Effect";
import * as CertificateAuthority from "../../tls/CertificateAuthority.ts";
import { EmulatorServerError } from "../EmulatorServerError.ts";

/**
 * The CA and the serving certificate for `names` (wildcard addresses left out): an earlier run's
 * when `saved` is given, its serving certificate kept when it still covers the names.
 *
 * @example
 * ```ts
 * const { ca, serving } = yield* Listening.certificates(undefined, ["127.0.0.1"])
 * ```
 */
export const certificates = (
  saved: CertificateAuthority.TlsMaterial | undefined,
  names: ReadonlyArray<string>,
): Effect.Effect<
  {
    readonly ca: CertificateAuthority.CertificateAuthority;
    readonly serving: CertificateAuthority.ServingPair;
  },
  EmulatorServerError
> =>
  Effect.gen(function* () {
    const ca =
      saved === undefined
        ? yield* CertificateAuthority.make()
        : yield* CertificateAuthority.restore(saved.ca);
    const served = names.filter((name) => name !== "0.0.0.0" && name !== "::");
    const reusable = saved !== undefined && CertificateAuthority.covers(saved.serving, served);
    return { ca, serving: reusable ? saved.serving : yield* ca.issueServing(served) };
  }).pipe(
    Effect.mapError((error) => new EmulatorServerError({ reason: "Certificate", message: error.message })),
  );

/**
 * Listens on `host:port` (0 picks a free port) and answers the port, or an `EmulatorServerError`
 * naming the address and why.
 *
 * @example
 * ```ts
 * const port = yield* Listening.listen(server, 0, "127.0.0.1")
 * ```
 */
export const listen = (
  server: Server,
  port: number,
  host: string,
): Effect.Effect<number, EmulatorServerError> =>
  Effect.callback<number, EmulatorServerError>((resume) => {
    const onError = (error: Error) => {
      server.off("listening", onListening);
      resume(
        Effect.fail(
          new EmulatorServerError({
            reason: "Listen",
            message: `cannot listen on ${host}:${port}: ${error.message}`,
          }),
        ),
      );
    };
    const onListening = () => {
      server.off("error", onError);
      resume(Effect.succeed((server.address() as AddressInfo).port));
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });

/**
 * Stops listening and cuts every connection in `sockets` at once (open watches included);
 * completes when the server has closed, or at once when it was not listening.
 *
 * @example
 * ```ts
 * const pause = Listening.close(server, sockets)
 * ```
 */
export const close = (server: Server, sockets: ReadonlySet<Socket>): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (!server.listening) {
      for (const socket of sockets) socket.destroy();
      resume(Effect.void);
      return;
    }
    server.close(() => resume(Effect.void));
    for (const socket of sockets) socket.destroy();
    server.closeAllConnections();
  });

/**
 * The base URL clients use: a wildcard bind is reached through the loopback address (which the
 * serving certificate covers); an IPv6 host goes in brackets.
 *
 * @example
 * ```ts
 * Listening.urlOf(true, "0.0.0.0", 40123) // "https://127.0.0.1:40123"
 * ```
 */
export const urlOf = (tls: boolean, host: string, port: number): string => {
  const advertised = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const formatted = advertised.includes(":") ? `[${advertised}]` : advertised;
  return `${tls ? "https" : "http"}://${formatted}:${port}`;
};
