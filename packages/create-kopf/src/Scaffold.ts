/**
 * The files of a new operator project, as values: a pure function of the options and of the
 * versions to depend on. Writing them is the caller's business (`main.ts`).
 */
import type { Options } from "./Options.ts";
import * as Operator from "./templates/Operator.ts";
import * as Project from "./templates/Project.ts";

/** One file of the project: its path relative to the project's directory, and its text. */
export interface ScaffoldFile {
  readonly path: string;
  readonly content: string;
}

/**
 * Every file of a new project.
 *
 * @example
 * files(options, { kopf: "0.1.0", ...Project.TOOLS }).map((file) => file.path)
 * // ["package.json", "tsconfig.json", ".gitignore", ..., "src/handlers.ts", "test/handlers.test.ts"]
 */
export const files = (options: Options, versions: Project.Versions): ReadonlyArray<ScaffoldFile> => [
  { path: "package.json", content: Project.packageJson(options, versions) },
  { path: "tsconfig.json", content: Project.tsconfig() },
  { path: ".gitignore", content: Project.gitignore() },
  { path: ".dockerignore", content: Project.dockerignore() },
  { path: "Dockerfile", content: Project.dockerfile(options) },
  { path: "README.md", content: Project.readme(options) },
  { path: "crd.yaml", content: Operator.crd(options) },
  { path: "example.yaml", content: Operator.example(options) },
  { path: "src/handlers.ts", content: Operator.handlers(options) },
  { path: "test/handlers.test.ts", content: Operator.test(options) },
];
