/**
 * The project around the operator: `package.json` (scripts start, dev, test, build, manifests), the
 * TypeScript configuration, ignore files, a README, and the container image's `Dockerfile`.
 */
import type { Options } from "../Options.ts";
import { servedArgs } from "./Operator.ts";

/** The versions a new project depends on. */
export interface Versions {
  /** Of kopf, @kopf/cli, @kopf/testing and @kopf/emulator: the scaffolder's own version. */
  readonly kopf: string;
  readonly typescript: string;
  readonly vitest: string;
  readonly typesNode: string;
}

/** The development tools a new project gets, as the framework itself is built and tested with. */
export const TOOLS = { typescript: "7.0.2", vitest: "5.1.2", typesNode: "24.19.4" } as const;

const lines = (...text: ReadonlyArray<string>): string => `${text.join("\n")}\n`;

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The name of the operator's objects in a cluster (Deployment, ServiceAccount, roles, Service):
 * the package name with what Kubernetes names do not allow replaced by `-`.
 *
 * @example
 * objectName({ name: "my_op.v2" }) // "my-op-v2"
 */
export const objectName = (o: Pick<Options, "name">): string =>
  o.name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .replace(/^-+|-+$/g, "") || "operator";

/**
 * `package.json`: kopf and its command as dependencies, the test kit and tools for development.
 *
 * @example
 * JSON.parse(packageJson(options, versions)).scripts.dev // "node --watch-path=src ..."
 */
export const packageJson = (o: Options, v: Versions): string => {
  const served = servedArgs(o).join(" ");
  return json({
    name: o.name,
    version: "0.1.0",
    private: true,
    type: "module",
    description: `A Kubernetes operator for ${o.kind} objects (${o.plural}.${o.group}), written with Kopf for TypeScript`,
    engines: { node: ">=22.19.0" },
    scripts: {
      start: `kopf run src/handlers.ts ${served}`,
      dev: `node --watch-path=src node_modules/@kopf/cli/bin/kopf.js run src/handlers.ts ${served} --standalone --emulator crd.yaml --emulator example.yaml`,
      test: "vitest run",
      build: "tsc",
      manifests: `kopf manifests src/handlers.ts ${served} --crd crd.yaml --name ${objectName(o)}`,
    },
    dependencies: { kopf: `^${v.kopf}`, "@kopf/cli": `^${v.kopf}` },
    devDependencies: {
      "@kopf/emulator": `^${v.kopf}`,
      "@kopf/testing": `^${v.kopf}`,
      "@types/node": v.typesNode,
      typescript: v.typescript,
      vitest: v.vitest,
    },
  });
};

/** `tsconfig.json`: strict, Node's module resolution; `npm run build` compiles src/ into dist/. */
export const tsconfig = (): string =>
  json({
    compilerOptions: {
      target: "es2023",
      module: "nodenext",
      moduleResolution: "nodenext",
      strict: true,
      skipLibCheck: true,
      types: ["node"],
      rootDir: "src",
      outDir: "dist",
      sourceMap: true,
    },
    include: ["src"],
  });

/** `.gitignore`. */
export const gitignore = (): string => lines("node_modules/", "dist/", ".kopf/");

/** `.dockerignore`: the image is built from the sources and the lockfile only. */
export const dockerignore = (): string => lines("node_modules", "dist", ".kopf", ".git", "test", "*.log");

/**
 * `Dockerfile`: built in one stage with every dependency, run in another with production ones only,
 * as the unprivileged `node` user, with `kopf run` as the entry point in exec form so that
 * SIGTERM reaches Node (and the operator's graceful stop) with no shell or npm in between.
 */
export const dockerfile = (o: Options): string =>
  lines(
    "# The operator's image: docker build -t my-registry/" + o.name + " .",
    "FROM node:24-slim AS build",
    "WORKDIR /app",
    "COPY package.json package-lock.json ./",
    "RUN npm ci",
    "COPY tsconfig.json ./",
    "COPY src ./src",
    "RUN npm run build",
    "",
    "FROM node:24-slim",
    "ENV NODE_ENV=production",
    "WORKDIR /app",
    "COPY package.json package-lock.json ./",
    "RUN npm ci --omit=dev && npm cache clean --force",
    "COPY --from=build /app/dist ./dist",
    "USER node",
    "EXPOSE 8080",
    // V8's optimizing compiler on the main thread: a lower peak in bursts, for no more CPU.
    'ENTRYPOINT ["node", "--no-concurrent-recompilation", "node_modules/@kopf/cli/bin/kopf.js", "run", "dist/handlers.js"]',
    `CMD [${[...servedArgs(o), "--liveness", "http://0.0.0.0:8080/healthz"].map((arg) => JSON.stringify(arg)).join(", ")}]`,
  );

/** `README.md`: what is where, and the commands of the development loop. */
export const readme = (o: Options): string =>
  lines(
    `# ${o.name}`,
    "",
    `A Kubernetes operator for \`${o.kind}\` objects (\`${o.plural}.${o.group}\`), written with Kopf for TypeScript.`,
    "",
    "- `src/handlers.ts`: the handlers (`kopf.on.create`, `kopf.on.update`, `kopf.on.delete`).",
    "- `crd.yaml`: the custom resource; `example.yaml`: an object to try.",
    "- `test/handlers.test.ts`: the operator run by `KopfRunner` against the Kubernetes API emulator.",
    "- `Dockerfile`: the production image (`kopf run` as its entry point).",
    "",
    "```sh",
    "npm run dev     # the operator against an embedded emulator with crd.yaml and example.yaml; restarts on changes in src/",
    "npm test        # the tests (on the emulator; KOPF_TEST_CLUSTER=kubeconfig:PATH for a real cluster)",
    "npm run build   # type-check and compile src/ into dist/",
    "npm start       # the operator against the cluster of $KUBECONFIG (apply crd.yaml there first)",
    "npm run manifests -- --image my-registry/" +
      objectName(o) +
      ":0.1.0 --output manifests/  # RBAC, Deployment, CRDs for the cluster",
    "```",
    "",
    "While `npm run dev` runs, `kubectl` reaches its emulator with `export KUBECONFIG=$PWD/.kopf/kubeconfig`.",
  );
