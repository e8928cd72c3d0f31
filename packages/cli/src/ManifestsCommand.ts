/**
 * `kopf manifests`: loads the operator's handler files or modules as `kopf run` does, resolves the
 * resources they serve among the built-in Kubernetes resources and the CRDs (of `kopf.resource`
 * declarations and `--crd` files) — and, with `--kubeconfig`/`--context`, a running cluster's —
 * and prints — or writes to a file or a directory — the YAML of
 * what the operator needs in a cluster ({@link Manifests.manifestsFor}). With `--explain`, it
 * prints the RBAC rules and the reason for each instead.
 */
import { Settings } from "@kopf/settings";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as kopf from "kopf";
import type { Argv } from "yargs";
import { discoverCluster } from "./internal/clusterDiscovery.ts";
import { messageOf } from "./internal/errorMessage.ts";
import { importOptional } from "./internal/importOptional.ts";
import { builtPath, lastGiven, type ManifestsArgs, runOptions } from "./internal/manifestArgs.ts";
import { ManifestsCommandError, readCrds, write } from "./internal/manifestFiles.ts";
import * as Loading from "./Loading.ts";
import * as Manifests from "./Manifests.ts";
import * as ResourceCommands from "./ResourceCommands.ts";
import * as RunArgs from "./RunArgs.ts";

export { builtPath, lastGiven, type ManifestsArgs } from "./internal/manifestArgs.ts";
export { ManifestsCommandError, OUTPUT_FILES } from "./internal/manifestFiles.ts";

/**
 * Adds the options of `kopf manifests` to a yargs command.
 *
 * @example
 * yargs(argv).command("manifests [paths..]", "Print the manifests.", ManifestsCommand.configure)
 */
export const configure = <T>(argv: Argv<T>) =>
  argv
    .positional("paths", { type: "string", array: true, describe: "handler files, as for kopf run" })
    .option("module", {
      alias: "m",
      type: "string",
      array: true,
      nargs: 1,
      describe: "modules, as for kopf run",
    })
    .option("namespace", {
      alias: "n",
      type: "string",
      array: true,
      nargs: 1,
      describe: "a namespace to serve (a Role in each); repeatable",
    })
    .option("all-namespaces", {
      alias: "A",
      type: "boolean",
      describe: "serve the whole cluster (ClusterRole)",
    })
    .option("name", { type: "string", describe: "name of the objects (default: kopf-operator)" })
    .option("image", { type: "string", describe: "the operator's image (default: NAME:latest)" })
    .option("operator-namespace", {
      type: "string",
      describe: "where the operator runs (default: the first served namespace, else default)",
    })
    .option("output", {
      alias: "o",
      type: "string",
      describe: "write to this file, or to 01-crds.yaml and 02-operator.yaml in this directory (ending in /)",
    })
    .option("crd", {
      type: "string",
      array: true,
      nargs: 1,
      describe: "a YAML file of CRDs of the served resources (not applied, only read); repeatable",
    })
    .option("entry", {
      type: "string",
      describe: "the built module the image runs (default: src/X.ts as dist/X.js)",
    })
    .option("replicas", {
      type: "number",
      describe: "replicas (default 1; 2 with --leader-election or --sharding)",
    })
    .option("standalone", { type: "boolean", describe: "no peering (no peering CRDs, objects and rules)" })
    .option("peering", {
      alias: "P",
      type: "string",
      describe: "the peering object's name (mandatory peering)",
    })
    .option("priority", { alias: "p", type: "number", describe: "the operator's priority among peers" })
    .option("leader-election", { type: "boolean", describe: "several replicas, one leader (Lease rules)" })
    .option("sharding", { type: "boolean", describe: "several replicas sharing the objects (Lease rules)" })
    .option("lease-name", { type: "string", describe: "the Lease or ring name (default: kopf)" })
    .option("lease-namespace", {
      type: "string",
      describe: "the Leases' namespace (default: the operator's)",
    })
    .option("shard-watch", {
      type: "string",
      choices: RunArgs.SHARD_WATCHES as Array<RunArgs.ShardWatch>,
      describe: "what a --sharding replica watches (passed on to kopf run)",
    })
    .option("webhook-managed", {
      type: "string",
      describe:
        "the Validating/MutatingWebhookConfiguration name the operator manages (settings.admission.managed)",
    })
    .option("webhook-port", { type: "number", describe: "the webhook server's port (default 9443)" })
    .option("kubeconfig", {
      type: "string",
      describe: "also resolve the served resources among this cluster's (read-only discovery)",
    })
    .option("context", { type: "string", describe: "the kubeconfig context of that cluster" })
    .option("explain", {
      type: "boolean",
      describe: "print the RBAC rules and why each is needed, not YAML",
    });

const failure = (reason: ManifestsCommandError["reason"], message: string) =>
  Effect.fail(new ManifestsCommandError({ reason, message }));

/**
 * `kopf manifests`: answers the text to print (nothing when written to `--output`).
 *
 * @example
 * const yaml = yield* ManifestsCommand.run({ paths: ["src/handlers.ts"], namespace: ["default"] }, { cwd })
 */
export const run = (
  given: ManifestsArgs,
  options: {
    readonly cwd?: string | undefined;
    readonly importer?: Loading.Importer | undefined;
    readonly env?: Readonly<Record<string, string | undefined>> | undefined;
    /** Settings overrides under the command line's, as `kopf run` takes them (e.g. from an embedding test). */
    readonly settings?: Settings.Overrides | undefined;
  },
) =>
  Effect.gen(function* () {
    const args = lastGiven(given);
    const cwd = options.cwd ?? ".";
    const namespaces = args.namespace ?? [];
    const clusterwide = args["all-namespaces"] === true;
    if (clusterwide === namespaces.length > 0)
      return yield* failure("BadOption", "Pass either --namespace NS (repeatable) or --all-namespaces.");
    const paths = args.paths ?? [];
    const modules = args.module ?? [];
    if (paths.length + modules.length === 0)
      return yield* failure(
        "BadOption",
        "Nothing to deploy: pass handler files (src/handlers.ts) or modules (-m).",
      );
    if (args["leader-election"] === true && args.sharding === true)
      return yield* failure("BadOption", "Either --leader-election or --sharding can be used, not both.");
    const operatorNamespace =
      args["operator-namespace"] ?? (clusterwide ? "default" : (namespaces[0] ?? "default"));
    const name = args.name ?? "kopf-operator";

    const registry = kopf.Registry.make();
    const previous = kopf.getDefaultRegistry();
    kopf.setDefaultRegistry(registry);
    yield* Loading.load({ paths, modules, cwd, importer: options.importer }).pipe(
      Effect.ensuring(Effect.sync(() => kopf.setDefaultRegistry(previous))),
    );
    const crds = yield* Effect.fromResult(ResourceCommands.crdObjects(registry.resources, {}));
    const read = yield* readCrds(cwd, args.crd ?? []);
    const discovery = yield* importOptional(
      ["@kopf/testing", "@kopf/emulator"],
      () => import("./internal/discovery.ts"),
    );
    const emulated = yield* discovery.discover([...crds, ...read]);
    const live =
      args.kubeconfig === undefined && args.context === undefined
        ? []
        : yield* discoverCluster({
            kubeconfig: args.kubeconfig,
            context: args.context,
            env: options.env,
          }).pipe(
            Effect.mapError(
              (error) =>
                new ManifestsCommandError({
                  reason: "Unreadable",
                  message: `Cannot read the served resources of the cluster: ${messageOf(error)}`,
                }),
            ),
          );
    // The cluster's own definitions first: they are what the operator will find there.
    const seen = new Set(live.map(Resource.format));
    const known = [...live, ...emulated.filter((resource) => !seen.has(Resource.format(resource)))];

    const run = runOptions(args, operatorNamespace, clusterwide);
    const settings = yield* Effect.fromResult(
      Settings.make({
        ...options.settings,
        peering: { ...options.settings?.peering, ...run.run.peering },
        scaling: { ...options.settings?.scaling, ...run.run.scaling },
        ...(args["webhook-managed"] === undefined
          ? {}
          : { admission: { ...options.settings?.admission, managed: args["webhook-managed"] } }),
      }),
    );
    const manifests = yield* Effect.fromResult(
      Manifests.manifestsFor(registry, settings, {
        name,
        image: args.image ?? `${name}:latest`,
        operatorNamespace,
        clusterwide,
        namespaces,
        command: [
          "node",
          // V8's optimizing compiler on the main thread: a burst's peak memory is ~20 MiB lower for
          // no more CPU (docs/performance.md). V8 reads this flag only as Node.js starts; given
          // here, `kopf run` need not restart itself with it (StartOnlyFlags.ts).
          "--no-concurrent-recompilation",
          "node_modules/@kopf/cli/bin/kopf.js",
          "run",
          ...(args.entry === undefined ? paths.map(builtPath) : [args.entry]),
          ...modules.flatMap((module) => ["-m", module]),
        ],
        runArgs: run.argv,
        replicas: run.replicas,
        livenessPort: 8080,
        webhookPort: args["webhook-port"] ?? 9443,
        known,
        crds,
      }),
    );
    if (args.explain === true) return Manifests.explain(manifests.rules);
    return yield* write(cwd, args.output, manifests);
  });
