/**
 * `kopf crd` and `kopf types`: the two directions between typed resources and CRDs. `kopf crd`
 * loads handler files or modules (as `kopf run` does) and prints the CRDs of the resources they
 * declare with `kopf.resource(...)` as YAML, ready for `kubectl apply -f -`. `kopf types` reads
 * CRDs from YAML and writes a TypeScript module declaring their Schemas and resources, so the
 * handlers of resources defined elsewhere get typed bodies too.
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Crd, TypesFromCrd } from "@kopf/resources";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as kopf from "kopf";
import { parseAllDocuments, stringify } from "yaml";
import type { Argv } from "yargs";
import * as Loading from "./Loading.ts";

/** Why `kopf crd` or `kopf types` could not do its work. */
export class ResourceCommandError extends Data.TaggedError("ResourceCommandError")<{
  readonly reason: "NoResources" | "Unsupported" | "Unreadable" | "NotACrd";
  readonly message: string;
}> {}

/** The arguments of `kopf crd`. */
export interface CrdArgs {
  readonly paths?: ReadonlyArray<string> | undefined;
  readonly module?: ReadonlyArray<string> | undefined;
  readonly conversionUrl?: string | undefined;
  readonly caBundle?: string | undefined;
}

/** The arguments of `kopf types`. */
export interface TypesArgs {
  readonly file: string;
  readonly output?: string | undefined;
}

/**
 * The options of `kopf crd` and `kopf types`.
 *
 * @example
 * yargs(argv).command("crd [paths..]", "Print the CRDs.", (y) => ResourceCommands.configure(y, "crd"))
 */
export const configure = <T>(argv: Argv<T>, command: "crd" | "types") =>
  command === "crd"
    ? argv
        .positional("paths", { type: "string", array: true, describe: "Handler files declaring resources." })
        .option("module", {
          alias: "m",
          type: "string",
          array: true,
          describe: "Modules declaring resources.",
        })
        .option("conversion-url", {
          type: "string",
          describe:
            "The URL of the conversion webhook (the operator's admission server + /convert/GROUP/PLURAL).",
        })
        .option("ca-bundle", {
          type: "string",
          describe: "The base64 PEM CA bundle of the conversion webhook.",
        })
    : argv
        .positional("file", { type: "string", demandOption: true, describe: "A YAML file of CRDs." })
        .option("output", {
          alias: "o",
          type: "string",
          describe: "Write the module here instead of stdout.",
        });

/** A CustomResourceDefinition as `kopf crd` prints it. */
export interface CrdObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec: object;
  readonly [field: string]: unknown;
}

/**
 * The CRDs of the declared resources (the conversion webhook at `conversionUrl`, with
 * `{group}` and `{plural}` replaced, when given).
 *
 * @example
 * ResourceCommands.crdObjects(registry.resources, {}) // Result.succeed([{ kind: "CustomResourceDefinition", ... }])
 */
export const crdObjects = (
  resources: ReadonlyArray<kopf.Registry.DeclaredResource>,
  args: Pick<CrdArgs, "conversionUrl" | "caBundle">,
): Result.Result<ReadonlyArray<CrdObject>, ResourceCommandError> => {
  const objects: Array<CrdObject> = [];
  for (const resource of resources) {
    const url = args.conversionUrl
      ?.replace("{group}", resource.definition.group)
      .replace("{plural}", resource.definition.plural);
    const crd = Crd.fromResource(resource, {
      ...(url === undefined
        ? {}
        : {
            conversionClientConfig: {
              url,
              ...(args.caBundle === undefined ? {} : { caBundle: args.caBundle }),
            },
          }),
    });
    if (Result.isFailure(crd))
      return Result.fail(new ResourceCommandError({ reason: "Unsupported", message: crd.failure.message }));
    objects.push(crd.success);
  }
  return Result.succeed(objects);
};

/** The CRDs of the declared resources, as one multi-document YAML text. */
export const crdYaml = (
  resources: ReadonlyArray<kopf.Registry.DeclaredResource>,
  args: Pick<CrdArgs, "conversionUrl" | "caBundle">,
): Result.Result<string, ResourceCommandError> =>
  Result.map(crdObjects(resources, args), (crds) =>
    crds.map((crd) => stringify(crd, { lineWidth: 0 })).join("---\n"),
  );

/**
 * `kopf crd`: loads the code and prints the CRDs of the resources it declares.
 *
 * @example
 * const yaml = yield* ResourceCommands.crd({ paths: ["handlers.ts"] }, { cwd })
 */
export const crd = (
  args: CrdArgs,
  options: { readonly cwd?: string | undefined; readonly importer?: Loading.Importer | undefined },
) =>
  Effect.gen(function* () {
    const registry = kopf.Registry.make();
    const previous = kopf.getDefaultRegistry();
    kopf.setDefaultRegistry(registry);
    yield* Loading.load({
      paths: args.paths ?? [],
      modules: args.module ?? [],
      cwd: options.cwd,
      importer: options.importer,
    }).pipe(Effect.ensuring(Effect.sync(() => kopf.setDefaultRegistry(previous))));
    if (registry.resources.length === 0)
      return yield* new ResourceCommandError({
        reason: "NoResources",
        message: "The loaded code declares no resources (kopf.resource(...)).",
      });
    return yield* Effect.fromResult(crdYaml(registry.resources, args));
  });

/** The TypeScript module of every CRD in a YAML text (other documents are an error). */
export const typesOf = (yaml: string): Result.Result<string, ResourceCommandError> => {
  const modules: Array<string> = [];
  for (const [i, document] of parseAllDocuments(yaml).entries()) {
    if (!("toJS" in document) || document.errors.length > 0)
      return Result.fail(
        new ResourceCommandError({ reason: "Unreadable", message: `document ${i + 1} is not valid YAML` }),
      );
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    const module = TypesFromCrd.fromCrd(value);
    if (Result.isFailure(module))
      return Result.fail(
        new ResourceCommandError({
          reason: "NotACrd",
          message: `document ${i + 1}: ${module.failure.message}`,
        }),
      );
    modules.push(module.success);
  }
  if (modules.length === 0)
    return Result.fail(new ResourceCommandError({ reason: "NotACrd", message: "the file holds no CRD" }));
  const isImport = (line: string) => line.startsWith("import ");
  const lines = modules.flatMap((m) => m.split("\n"));
  const imports = [...new Set(lines.filter(isImport))].sort();
  return Result.succeed(
    [
      ...imports,
      ...modules.map((m) =>
        m
          .split("\n")
          .filter((l) => !isImport(l))
          .join("\n"),
      ),
    ].join("\n"),
  );
};

/**
 * `kopf types`: reads the CRDs of a YAML file; answers the module, or writes it to `output`.
 *
 * @example
 * const text = yield* ResourceCommands.types({ file: "crd.yaml" }, { cwd })
 */
export const types = (args: TypesArgs, options: { readonly cwd?: string | undefined }) =>
  Effect.gen(function* () {
    const path = resolve(options.cwd ?? ".", args.file);
    const yaml = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (error) =>
        new ResourceCommandError({ reason: "Unreadable", message: `Cannot read ${path}: ${String(error)}` }),
    });
    const module = yield* Effect.fromResult(typesOf(yaml));
    if (args.output === undefined) return module;
    const out = resolve(options.cwd ?? ".", args.output);
    yield* Effect.tryPromise({
      try: () => writeFile(out, module),
      catch: (error) =>
        new ResourceCommandError({ reason: "Unreadable", message: `Cannot write ${out}: ${String(error)}` }),
    });
    return "";
  });
