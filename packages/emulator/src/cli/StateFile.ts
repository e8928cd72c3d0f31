/**
 * The `--state` file of `kopf emulator`: every object with the resource version, and the server's
 * identity — its port, its bearer token, its CA and serving certificate with their keys — so that a
 * restarted emulator is like a restarted API server: clients keep their kubeconfig (same address,
 * same CA, same token or client certificate) and reconnect. The file holds private keys, so it is
 * written readable by its owner only, atomically (a temporary file renamed over it).
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import type { EmulatorState } from "../api/Emulator.ts";
import type { TlsMaterial } from "../tls/CertificateAuthority.ts";
import { EmulatorCliError } from "./EmulatorCliError.ts";

/** Who the server was: what a restart reuses. */
export interface ServerIdentity {
  readonly port: number;
  readonly token?: string | undefined;
  readonly tls: TlsMaterial;
}

/** What the state file holds. */
export interface Contents {
  readonly emulator: EmulatorState;
  /** Absent in files written before the server's identity was kept. */
  readonly server: ServerIdentity | undefined;
}

const Pem = Schema.Struct({ certPem: Schema.String, keyPem: Schema.String });
const Server = Schema.Struct({
  port: Schema.Number,
  token: Schema.optionalKey(Schema.String),
  tls: Schema.Struct({
    ca: Pem,
    serving: Schema.Struct({
      certPem: Schema.String,
      keyPem: Schema.String,
      names: Schema.Array(Schema.String),
    }),
  }),
});
const File = Schema.Struct({
  resourceVersion: Schema.String,
  objects: Schema.Array(Schema.Unknown),
  server: Schema.optionalKey(Server),
});

const failure = (message: string) => new EmulatorCliError({ reason: "StateFile", message });

/**
 * Reads a state file; `undefined` when there is none yet.
 *
 * @example
 * ```ts
 * const contents = yield* StateFile.load("/tmp/emulator.json");
 * if (contents !== undefined) yield* emulator.importState(contents.emulator);
 * ```
 */
export const load = (path: string): Effect.Effect<Contents | undefined, EmulatorCliError> =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (error) => error as NodeJS.ErrnoException,
    }).pipe(
      Effect.catch((error) =>
        error.code === "ENOENT"
          ? Effect.succeed(undefined)
          : Effect.fail(failure(`cannot read ${path}: ${error.message}`)),
      ),
    );
    if (text === undefined) return undefined;
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (error) => failure(`${path} is not a JSON state file: ${String(error)}`),
    });
    const file = yield* Schema.decodeUnknownEffect(File)(json).pipe(
      Effect.mapError((error) => failure(`${path} is not a state file: ${error.message}`)),
    );
    return {
      emulator: { resourceVersion: file.resourceVersion, objects: file.objects },
      server: file.server,
    } satisfies Contents;
  });

/**
 * Writes a state file atomically, readable by its owner only.
 *
 * @example
 * ```ts
 * yield* StateFile.save("/tmp/emulator.json", { emulator: yield* emulator.exportState, server });
 * ```
 */
export const save = (path: string, contents: Contents): Effect.Effect<void, EmulatorCliError> =>
  Effect.tryPromise({
    try: async () => {
      const file = {
        ...contents.emulator,
        ...(contents.server === undefined ? {} : { server: contents.server }),
      };
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(file)}\n`, { mode: 0o600 });
      await rename(temporary, path);
    },
    catch: (error) => failure(`cannot save the state to ${path}: ${String(error)}`),
  });
