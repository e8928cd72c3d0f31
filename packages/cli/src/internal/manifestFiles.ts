/**
 * The files of `kopf manifests`: the CRD files of `--crd` read, and the manifests written to a
 * file or a directory.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { RawBody } from "@kopf/structs";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { parseAllDocuments } from "yaml";
import * as Manifests from "../Manifests.ts";

/** Why `kopf manifests` could not write the manifests. */
export class ManifestsCommandError extends Data.TaggedError("ManifestsCommandError")<{
  readonly reason: "BadOption" | "Unreadable" | "Unwritable";
  readonly message: string;
}> {}

/** The files `--output DIR/` writes, in the order to apply them: the CRDs, then the rest. */
export const OUTPUT_FILES = ["01-crds.yaml", "02-operator.yaml"] as const;

/**
 * The CustomResourceDefinitions in the YAML files (other objects are skipped; a file that is not
 * YAML, or holds no CRD, is an error naming it).
 *
 * @example
 * const crds = yield* readCrds(cwd, ["crd.yaml"])
 */
export const readCrds = (cwd: string, files: ReadonlyArray<string>) =>
  Effect.forEach(files, (file) =>
    Effect.gen(function* () {
      const path = resolve(cwd, file);
      const text = yield* Effect.tryPromise({
        try: () => readFile(path, "utf8"),
        catch: (error) =>
          new ManifestsCommandError({
            reason: "Unreadable",
            message: `Cannot read ${path}: ${String(error)}`,
          }),
      });
      const documents = parseAllDocuments(text);
      const broken = documents.findIndex((document) => !("toJS" in document) || document.errors.length > 0);
      if (broken >= 0)
        return yield* new ManifestsCommandError({
          reason: "Unreadable",
          message: `${path}: document ${broken + 1} is not valid YAML`,
        });
      const crds = documents
        .map((document) => ("toJS" in document ? (document.toJS() as unknown) : undefined))
        .filter(
          (value): value is RawBody =>
            typeof value === "object" &&
            value !== null &&
            "kind" in value &&
            value.kind === "CustomResourceDefinition",
        );
      if (crds.length === 0)
        return yield* new ManifestsCommandError({
          reason: "Unreadable",
          message: `${path} holds no CustomResourceDefinition (--crd takes files of CRDs)`,
        });
      return crds;
    }),
  ).pipe(Effect.map((lists) => lists.flat()));

/**
 * Writes the manifests: to stdout (answered), a file, or a directory (ending in `/`, or existing)
 * as {@link OUTPUT_FILES}; answers what to print.
 *
 * @example
 * const text = yield* write(cwd, "manifests/", manifests) // "" — written to manifests/
 */
export const write = (cwd: string, output: string | undefined, manifests: Manifests.Manifests) =>
  Effect.gen(function* () {
    const all = Manifests.render(manifests.objects, manifests.rules);
    if (output === undefined) return all;
    const target = resolve(cwd, output);
    const isDirectory =
      output.endsWith("/") ||
      (yield* Effect.promise(() =>
        stat(target).then(
          (s) => s.isDirectory(),
          () => false,
        ),
      ));
    const files: ReadonlyArray<readonly [string, string]> = isDirectory
      ? [
          [
            join(target, OUTPUT_FILES[0]),
            Manifests.render(manifests.objects.filter(Manifests.isDefinition), []),
          ],
          [
            join(target, OUTPUT_FILES[1]),
            Manifests.render(
              manifests.objects.filter((o) => !Manifests.isDefinition(o)),
              manifests.rules,
            ),
          ],
        ]
      : [[target, all]];
    for (const [file, text] of files) {
      yield* Effect.tryPromise({
        try: async () => {
          if (isDirectory) await mkdir(target, { recursive: true });
          await writeFile(file, text);
        },
        catch: (error) =>
          new ManifestsCommandError({
            reason: "Unwritable",
            message: `Cannot write ${file}: ${String(error)}`,
          }),
      });
    }
    return "";
  });
