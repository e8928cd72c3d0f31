/**
 * The files of a new project for different options: the resource's names flow into every file,
 * the served namespaces into the scripts, the image and the test; the image runs `kopf run` in
 * exec form as a non-root user with production dependencies only; the tools are the versions the
 * framework itself is built with.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as Options from "../src/Options.ts";
import * as Scaffold from "../src/Scaffold.ts";
import { objectName, TOOLS } from "../src/templates/Project.ts";

const here = dirname(fileURLToPath(import.meta.url));

const optionsOf = (raw: Options.RawOptions): Options.Options => {
  const validated = Options.validate(raw);
  if (!validated.ok) throw new Error(validated.error.message);
  return validated.options;
};

const project = (raw: Options.RawOptions) =>
  new Map(
    Scaffold.files(optionsOf(raw), { kopf: "1.2.3", ...TOOLS }).map((file) => [file.path, file.content]),
  );

const file = (files: Map<string, string>, path: string): string => {
  const content = files.get(path);
  if (content === undefined) throw new Error(`no ${path}`);
  return content;
};

describe("files", () => {
  it("makes a whole project", () => {
    expect([...project({ directory: "my-op" }).keys()].sort()).toEqual([
      ".dockerignore",
      ".gitignore",
      "Dockerfile",
      "README.md",
      "crd.yaml",
      "example.yaml",
      "package.json",
      "src/handlers.ts",
      "test/handlers.test.ts",
      "tsconfig.json",
    ]);
  });

  it("puts the resource's names into the handlers, the CRD, the example and the test", () => {
    const files = project({ directory: "db-op", group: "acme.io", kind: "Database" });
    expect(file(files, "src/handlers.ts")).toContain(
      'kopf.on.create<Database>("databases.acme.io", function create_database(',
    );
    expect(file(files, "src/handlers.ts")).toContain("export interface DatabaseSpec {");
    expect(file(files, "crd.yaml")).toContain("  name: databases.acme.io\n");
    expect(file(files, "crd.yaml")).toContain("    kind: Database\n    plural: databases\n");
    expect(file(files, "example.yaml")).toContain("apiVersion: acme.io/v1\nkind: Database\n");
    expect(file(files, "test/handlers.test.ts")).toContain('group: "acme.io"');
    expect(file(files, "test/handlers.test.ts")).toContain("Handler 'create_database' succeeded.");
  });

  it.each([
    [{ directory: "op" }, "-n default", ["-n", "default"]],
    [{ directory: "op", namespace: "prod" }, "-n prod", ["-n", "prod"]],
    [{ directory: "op", clusterwide: true }, "--all-namespaces", ["--all-namespaces"]],
  ])("%j serves %s everywhere", (raw, served, args) => {
    const files = project(raw);
    const manifest = JSON.parse(file(files, "package.json")) as { scripts: Record<string, string> };
    expect(manifest.scripts.start).toBe(`kopf run src/handlers.ts ${served}`);
    expect(manifest.scripts.dev).toContain(`kopf.js run src/handlers.ts ${served} `);
    expect(file(files, "Dockerfile")).toContain(
      `CMD ${JSON.stringify([...args, "--liveness", "http://0.0.0.0:8080/healthz"]).replaceAll(",", ", ")}`,
    );
    expect(file(files, "test/handlers.test.ts")).toContain(args.map((arg) => JSON.stringify(arg)).join(", "));
  });

  it("has the scripts start, dev, test, build and manifests, on published versions", () => {
    const manifest = JSON.parse(file(project({ directory: "op" }), "package.json")) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.scripts).sort()).toEqual(["build", "dev", "manifests", "start", "test"]);
    expect(manifest.scripts.manifests).toBe(
      "kopf manifests src/handlers.ts -n default --crd crd.yaml --name op",
    );
    expect(manifest.scripts.dev).toMatch(
      /^node --watch-path=src .* --emulator crd\.yaml --emulator example\.yaml$/,
    );
    expect(manifest.dependencies).toEqual({ kopf: "^1.2.3", "@kopf/cli": "^1.2.3" });
    expect(manifest.devDependencies["@kopf/testing"]).toBe("^1.2.3");
    expect(manifest.devDependencies["@kopf/emulator"]).toBe("^1.2.3");
  });

  it("names the cluster objects after the package, as Kubernetes names allow", () => {
    expect(objectName({ name: "my-op" })).toBe("my-op");
    expect(objectName({ name: "my_op.v2" })).toBe("my-op-v2");
    expect(objectName({ name: "_" })).toBe("operator");
    const manifest = JSON.parse(
      file(project({ directory: "acme_op", clusterwide: true }), "package.json"),
    ) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.manifests).toBe(
      "kopf manifests src/handlers.ts --all-namespaces --crd crd.yaml --name acme-op",
    );
    expect(file(project({ directory: "op" }), "README.md")).toContain(
      "npm run manifests -- --image my-registry/op:0.1.0",
    );
  });

  it("builds an image that runs kopf in exec form, unprivileged, with production dependencies only", () => {
    const dockerfile = file(project({ directory: "op" }), "Dockerfile");
    const stages = dockerfile.split(/\n(?=FROM )/).filter((part) => part.startsWith("FROM "));
    expect(stages).toHaveLength(2);
    const runtime = stages[1] ?? "";
    expect(runtime).toContain("ENV NODE_ENV=production");
    expect(runtime).toContain("RUN npm ci --omit=dev");
    expect(runtime).toContain("COPY --from=build /app/dist ./dist");
    expect(runtime).toContain("USER node");
    expect(runtime).toContain(
      'ENTRYPOINT ["node", "--no-concurrent-recompilation", "node_modules/@kopf/cli/bin/kopf.js", "run", "dist/handlers.js"]',
    );
    expect(runtime).not.toMatch(/ENTRYPOINT \[?"?(sh|npm|npx)/);
  });

  it("gives the tools the versions the framework is built and tested with", () => {
    const root = JSON.parse(readFileSync(join(here, "../../../package.json"), "utf-8")) as {
      devDependencies: Record<string, string>;
    };
    expect(TOOLS).toEqual({
      typescript: root.devDependencies.typescript,
      vitest: root.devDependencies.vitest,
      typesNode: root.devDependencies["@types/node"],
    });
  });

  it("writes the handlers the getting-started guide shows", () => {
    const handlers = file(
      project({ directory: "my-operator", group: "acme.io", kind: "Database" }),
      "src/handlers.ts",
    );
    const snippet = readFileSync(join(here, "../../../docs/snippets/gettingStarted.ts"), "utf-8");
    const code = (text: string) => text.slice(text.indexOf("import "));
    expect(code(handlers)).toBe(code(snippet));
  });
});
