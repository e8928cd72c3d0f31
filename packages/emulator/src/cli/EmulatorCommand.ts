/**
 * `kopf emulator`: runs the Kubernetes API emulator as a server until stopped. It loads the state
 * file (if any), applies the CRD files, starts HTTPS (or plain HTTP with `--insecure`), writes a
 * kubeconfig for `kubectl` and other clients, and on shutdown closes every connection and saves all
 * objects to the state file. The state file also keeps the server's port, token and certificates
 * (see `StateFile`), so clients of an earlier run reconnect to a restarted one. The flags are defined once ({@link configure}) so that the standalone
 * `kopf-emulator` binary and the `kopf` CLI's `emulator` command share them.
 */
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Console from "effect/Console";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Ref from "effect/Ref";
import { parseAllDocuments } from "yaml";
import type { Argv } from "yargs";
import yargs from "yargs";
import { KubeEmulator } from "../api/Emulator.ts";
import type { FaultInjector } from "../control/FaultInjector.ts";
import { EmulatorServer } from "../server/EmulatorServer.ts";
import type { EmulatorServerError } from "../server/EmulatorServerError.ts";
import type { KubeconfigError } from "../server/Kubeconfig.ts";
import { EmulatorCliError } from "./EmulatorCliError.ts";
import * as StateFile from "./StateFile.ts";

export { EmulatorCliError } from "./EmulatorCliError.ts";

/** The parsed command line. */
export interface EmulatorCliOptions {
  readonly port: number;
  readonly host: string;
  readonly kubeconfig: string | undefined;
  readonly crd: ReadonlyArray<string>;
  readonly state: string | undefined;
  readonly token: string | undefined;
  readonly insecure: boolean;
}

/**
 * Adds the emulator's flags to a yargs instance (for the `kopf` CLI's `emulator` subcommand).
 *
 * @example
 * ```ts
 * yargs(argv).command("emulator", "run the Kubernetes API emulator", EmulatorCommand.configure, handler);
 * ```
 */
export const configure = <T>(argv: Argv<T>) =>
  argv
    .option("port", { type: "number", default: 0, describe: "port to listen on (0 picks a free one)" })
    .option("host", { type: "string", default: "127.0.0.1", describe: "address to bind" })
    .option("kubeconfig", {
      type: "string",
      describe: "where to write the kubeconfig (default: a file in the temp dir)",
    })
    .option("crd", {
      type: "string",
      array: true,
      default: [] as Array<string>,
      describe: "CRD (or any object) YAML file to apply at start; repeatable",
    })
    .option("state", {
      type: "string",
      describe: "JSON file to load objects from at start and save them to on shutdown",
    })
    .option("token", {
      type: "string",
      describe: "bearer token every request must carry (default: any token)",
    })
    .option("insecure", { type: "boolean", default: false, describe: "serve plain HTTP instead of HTTPS" })
    .check((args) =>
      Number.isInteger(args.port) && args.port >= 0 && args.port <= 65535
        ? true
        : `--port must be an integer in 0..65535, got ${String(args.port)}`,
    );

/** Parses a command line (without the program name) into options. */
export const parse = (argv: ReadonlyArray<string>): Effect.Effect<EmulatorCliOptions, EmulatorCliError> => {
  let failure: string | undefined;
  return Effect.tryPromise({
    try: () =>
      configure(yargs([...argv]))
        .scriptName("kopf-emulator")
        .strict()
        .exitProcess(false)
        .fail((message, error) => {
          failure ??= error?.message ?? message;
        })
        .parseAsync(),
    catch: (error) =>
      new EmulatorCliError({
        reason: "Usage",
        message: error instanceof Error ? error.message : String(error),
      }),
  }).pipe(
    Effect.filterOrFail(
      () => failure === undefined,
      () => new EmulatorCliError({ reason: "Usage", message: failure ?? "invalid arguments" }),
    ),
    Effect.filterOrFail(
      (args) => args.help !== true && args.version !== true,
      () => new EmulatorCliError({ reason: "Help", message: "" }),
    ),
    Effect.map((args) => ({
      port: args.port,
      host: args.host,
      kubeconfig: args.kubeconfig,
      crd: args.crd.map(String),
      state: args.state,
      token: args.token,
      insecure: args.insecure,
    })),
  );
};

/** The objects of a YAML file (multi-document; `List` documents are expanded). */
export const readObjects = (path: string): Effect.Effect<ReadonlyArray<unknown>, EmulatorCliError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) =>
      new EmulatorCliError({ reason: "CrdFile", message: `cannot read ${path}: ${String(error)}` }),
  }).pipe(
    Effect.flatMap((text) => {
      const documents = parseAllDocuments(text);
      const objects: Array<unknown> = [];
      for (const [index, document] of (Array.isArray(documents) ? documents : [documents]).entries()) {
        if (document.errors.length > 0) {
          return Effect.fail(
            new EmulatorCliError({
              reason: "CrdFile",
              message: `${path}: document ${index + 1} is not valid YAML: ${document.errors[0]?.message}`,
            }),
          );
        }
        const value: unknown = document.toJS();
        if (value === null || value === undefined) continue;
        if (typeof value !== "object" || Array.isArray(value)) {
          return Effect.fail(
            new EmulatorCliError({
              reason: "CrdFile",
              message: `${path}: document ${index + 1} is not an object`,
            }),
          );
        }
        const list = value as { kind?: unknown; items?: unknown };
        if (typeof list.kind === "string" && list.kind.endsWith("List") && Array.isArray(list.items))
          objects.push(...list.items);
        else objects.push(value);
      }
      return Effect.succeed(objects);
    }),
  );

/**
 * Runs the emulator server for the lifetime of the scope; returns once it is serving.
 *
 * @example
 * ```ts
 * yield* EmulatorCommand.start(options); // then Effect.never, or close the scope to stop
 * ```
 */
export const start = Effect.fnUntraced(function* (options: EmulatorCliOptions) {
  const emulator = yield* KubeEmulator;
  const saved = options.state === undefined ? undefined : yield* StateFile.load(options.state);
  if (saved !== undefined) {
    yield* emulator.importState(saved.emulator);
    yield* Console.log(`loaded the state from ${options.state}`);
  }
  for (const path of options.crd) {
    const objects = yield* readObjects(path);
    yield* emulator
      .apply(objects)
      .pipe(
        Effect.mapError(
          (error) =>
            new EmulatorCliError({ reason: "Apply", message: `cannot apply ${path}: ${messageOf(error)}` }),
        ),
      );
    yield* Console.log(`applied ${objects.length} object(s) from ${path}`);
  }
  const identity = yield* Ref.make(saved?.server);
  const state = options.state;
  const save = (path: string) =>
    Effect.all([emulator.exportState, Ref.get(identity)]).pipe(
      Effect.flatMap(([objects, server]) => StateFile.save(path, { emulator: objects, server })),
    );
  if (state !== undefined) {
    // Added before the server starts, so it runs after the server has stopped taking writes.
    yield* Effect.addFinalizer(() =>
      save(state).pipe(
        Effect.andThen(Console.log(`saved the state to ${state}`)),
        Effect.catch((error) => Console.error(error.message)),
      ),
    );
  }
  // A restart serves as the previous run did: the same port (unless --port says otherwise), the
  // same token (unless --token does) and the same certificates.
  const token = options.token ?? saved?.server?.token;
  const serverOn = (port: number) =>
    Layer.build(
      EmulatorServer.layer({
        port,
        host: options.host,
        tls: !options.insecure,
        ...(token === undefined ? {} : { token }),
        ...(saved?.server === undefined ? {} : { tlsMaterial: saved.server.tls }),
      }),
    );
  const previousPort = options.port === 0 ? saved?.server?.port : undefined;
  const context =
    previousPort === undefined
      ? yield* serverOn(options.port)
      : yield* serverOn(previousPort).pipe(
          Effect.catch((error) =>
            error.reason === "Listen"
              ? Console.error(
                  `the port of the previous run (${previousPort}) is taken: serving on another one; ` +
                    "clients must use the new kubeconfig",
                ).pipe(Effect.andThen(serverOn(0)))
              : Effect.fail(error),
          ),
        );
  const server = Context.get(context, EmulatorServer);
  yield* Ref.set(identity, { port: server.port, token, tls: server.tlsMaterial });
  // Saved at once too: a killed emulator still restarts with the same address and certificates.
  if (state !== undefined) yield* save(state);
  const kubeconfig = options.kubeconfig ?? join(tmpdir(), `kopf-emulator-${server.port}.kubeconfig`);
  yield* server.writeKubeconfig(kubeconfig);
  yield* Console.log(`kopf emulator serving ${server.url}`);
  yield* Console.log(`kubeconfig written to ${kubeconfig} (export KUBECONFIG=${kubeconfig})`);
  return server;
});

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error
    ? String((error as { message: unknown }).message)
    : String(error);

/** Everything `start` can fail with. */
export type StartError = EmulatorCliError | EmulatorServerError | KubeconfigError;

/** Runs until interrupted (SIGINT/SIGTERM under `NodeRuntime.runMain`). */
export const serve = (
  options: EmulatorCliOptions,
): Effect.Effect<never, StartError, KubeEmulator | FaultInjector> =>
  Effect.scoped(start(options).pipe(Effect.andThen(Effect.never)));
