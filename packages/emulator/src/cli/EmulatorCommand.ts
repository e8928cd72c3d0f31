/**
 * `kopf emulator`: runs the Kubernetes API emulator as a server until stopped. It loads the state
 * file (if any), applies the CRD files, starts HTTPS (or plain HTTP with `--insecure`), writes a
 * kubeconfig for `kubectl` and other clients, and on shutdown closes every connection and saves all
 * objects to the state file. The flags are defined once ({@link configure}) so that the standalone
 * `kopf-emulator` binary and the `kopf` CLI's `emulator` command share them.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Console, Context, Data, Effect, Layer, Schema } from "effect";
import { parseAllDocuments } from "yaml";
import type { Argv } from "yargs";
import yargs from "yargs";
import { KubeEmulator } from "../api/Emulator.ts";
import type { FaultInjector } from "../control/FaultInjector.ts";
import { EmulatorServer } from "../server/EmulatorServer.ts";
import type { EmulatorServerError } from "../server/EmulatorServerError.ts";
import type { KubeconfigError } from "../server/Kubeconfig.ts";

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

/** Why the command could not run. */
export class EmulatorCliError extends Data.TaggedError("EmulatorCliError")<{
  /** `Help`: help or the version was asked for and printed; nothing else to do. */
  readonly reason: "Usage" | "Help" | "CrdFile" | "StateFile" | "Apply";
  readonly message: string;
}> {}

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

/** The shape of a state file (what `KubeEmulator.exportState` gives). */
const StateFile = Schema.Struct({ resourceVersion: Schema.String, objects: Schema.Array(Schema.Unknown) });

const loadState = (path: string) =>
  Effect.gen(function* () {
    const emulator = yield* KubeEmulator;
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (error) => error as NodeJS.ErrnoException,
    }).pipe(
      Effect.catch((error) =>
        error.code === "ENOENT"
          ? Effect.succeed(undefined)
          : Effect.fail(
              new EmulatorCliError({ reason: "StateFile", message: `cannot read ${path}: ${error.message}` }),
            ),
      ),
    );
    if (text === undefined) return false;
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (error) =>
        new EmulatorCliError({
          reason: "StateFile",
          message: `${path} is not a JSON state file: ${String(error)}`,
        }),
    });
    const state = yield* Schema.decodeUnknownEffect(StateFile)(json).pipe(
      Effect.mapError(
        (error) =>
          new EmulatorCliError({
            reason: "StateFile",
            message: `${path} is not a state file: ${error.message}`,
          }),
      ),
    );
    yield* emulator.importState(state);
    return true;
  });

/** Saves the state atomically (a temporary file renamed over the target). */
const saveState = (path: string) =>
  Effect.gen(function* () {
    const emulator = yield* KubeEmulator;
    const state = yield* emulator.exportState;
    yield* Effect.tryPromise({
      try: async () => {
        const temporary = `${path}.${process.pid}.tmp`;
        await writeFile(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
        await rename(temporary, path);
      },
      catch: (error) =>
        new EmulatorCliError({
          reason: "StateFile",
          message: `cannot save the state to ${path}: ${String(error)}`,
        }),
    });
  });

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
  if (options.state !== undefined) {
    const loaded = yield* loadState(options.state);
    if (loaded) yield* Console.log(`loaded the state from ${options.state}`);
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
  const state = options.state;
  if (state !== undefined) {
    yield* Effect.addFinalizer(() =>
      saveState(state).pipe(
        Effect.andThen(Console.log(`saved the state to ${state}`)),
        Effect.catch((error) => Console.error(error.message)),
      ),
    );
  }
  const context = yield* Layer.build(
    EmulatorServer.layer({
      port: options.port,
      host: options.host,
      tls: !options.insecure,
      ...(options.token === undefined ? {} : { token: options.token }),
    }),
  );
  const server = Context.get(context, EmulatorServer);
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
