/**
 * The operator's own files in a new project: the handlers of a typed custom resource, its CRD,
 * an example object, and a test that runs the handlers with `KopfRunner` on the emulator.
 */
import type { Options } from "../Options.ts";

const lines = (...text: ReadonlyArray<string>): string => `${text.join("\n")}\n`;

/** An import statement of the generated code. */
const importFrom = (what: string, module: string): string => `import ${what} from "${module}";`;

/** The name of the generated test's resource constant. */
const resourceConstant = (o: Options): string => o.plural.replace(/-./g, (m) => (m[1] ?? "").toUpperCase());

const fullName = (o: Options) => `${o.plural}.${o.group}`;
const createId = (o: Options) => `create_${o.singular}`;

/**
 * `src/handlers.ts`: the resource's type and its create, update and delete handlers.
 *
 * @example
 * handlers(options) // "import * as kopf from \"kopf\";\n..."
 */
export const handlers = (o: Options): string =>
  lines(
    "/**",
    ` * The operator's handlers: what happens when a ${o.kind} is created, changed or deleted.`,
    " * `kopf run src/handlers.ts` loads this file; each `kopf.on.*` call registers a handler, and",
    " * what a handler returns is stored in the object's status under the handler's id.",
    " */",
    importFrom("* as kopf", "kopf"),
    "",
    `/** What a ${o.kind} asks for (its spec, as crd.yaml declares it). */`,
    `export interface ${o.kind}Spec {`,
    "  readonly message: string;",
    "  readonly replicas?: number;",
    "}",
    "",
    `/** A ${o.kind} object (${fullName(o)}/${o.version}). */`,
    `export interface ${o.kind} {`,
    "  readonly apiVersion: string;",
    "  readonly kind: string;",
    "  readonly metadata: { readonly name?: string; readonly namespace?: string };",
    `  readonly spec: ${o.kind}Spec;`,
    "  readonly status?: Record<string, unknown>;",
    "}",
    "",
    `kopf.on.create<${o.kind}>("${fullName(o)}", function ${createId(o)}({ spec, name, logger }) {`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the generated code
    "  logger.info(`Creating ${name}: ${spec.message}`);",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the generated code
    "  return { message: `created: ${spec.message}`, replicas: spec.replicas ?? 1 };",
    "});",
    "",
    `kopf.on.update<${o.kind}>(`,
    `  "${fullName(o)}",`,
    '  { field: "spec.message" },',
    "  function message_changed({ old, new: value, logger }) {",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the generated code
    "    logger.info(`The message changed from ${JSON.stringify(old)} to ${JSON.stringify(value)}`);",
    "  },",
    ");",
    "",
    `kopf.on.delete<${o.kind}>("${fullName(o)}", function delete_${o.singular}({ name, logger }) {`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the generated code
    "  logger.info(`Deleting ${name}: cleaning up what it owns`);",
    "});",
  );

/** `crd.yaml`: the CustomResourceDefinition, with a schema for the spec and a status subresource. */
export const crd = (o: Options): string =>
  lines(
    "# The custom resource this operator handles. Apply it to a cluster with",
    "#   kubectl apply -f crd.yaml",
    "apiVersion: apiextensions.k8s.io/v1",
    "kind: CustomResourceDefinition",
    "metadata:",
    `  name: ${fullName(o)}`,
    "spec:",
    `  group: ${o.group}`,
    "  scope: Namespaced",
    "  names:",
    `    kind: ${o.kind}`,
    `    plural: ${o.plural}`,
    `    singular: ${o.singular}`,
    "  versions:",
    `    - name: ${o.version}`,
    "      served: true",
    "      storage: true",
    "      subresources:",
    "        status: {}",
    "      schema:",
    "        openAPIV3Schema:",
    "          type: object",
    "          properties:",
    "            spec:",
    "              type: object",
    "              required: [message]",
    "              properties:",
    "                message:",
    "                  type: string",
    "                replicas:",
    "                  type: integer",
    "                  minimum: 0",
    "            status:",
    "              type: object",
    "              x-kubernetes-preserve-unknown-fields: true",
  );

/** `example.yaml`: one object to try the operator with. */
export const example = (o: Options): string =>
  lines(
    `apiVersion: ${o.group}/${o.version}`,
    `kind: ${o.kind}`,
    "metadata:",
    "  name: example",
    `  namespace: ${o.namespace}`,
    "spec:",
    "  message: hello",
    "  replicas: 2",
  );

/** The `kopf run` arguments that select what the operator serves. */
export const servedArgs = (o: Options): ReadonlyArray<string> =>
  o.clusterwide ? ["--all-namespaces"] : ["-n", o.namespace];

/** `test/handlers.test.ts`: the handlers run by `kopf run` in-process against the emulator. */
export const test = (o: Options): string =>
  lines(
    "/**",
    " * The operator under test: `kopf run` in-process against a fresh Kubernetes API emulator (or",
    " * any cluster: KOPF_TEST_CLUSTER=kubeconfig:PATH), with the CRD and the example object applied.",
    " */",
    importFrom("{ dirname, join }", "node:path"),
    importFrom("{ fileURLToPath }", "node:url"),
    importFrom("{ Cli }", "@kopf/cli"),
    importFrom("{ KopfRunner }", "@kopf/testing"),
    importFrom("* as kopf", "kopf"),
    importFrom("{ expect, it }", "vitest"),
    "",
    'const root = join(dirname(fileURLToPath(import.meta.url)), "..");',
    `const ${resourceConstant(o)} = kopf.Resource.make({`,
    `  group: "${o.group}",`,
    `  version: "${o.version}",`,
    `  plural: "${o.plural}",`,
    `  kind: "${o.kind}",`,
    "  namespaced: true,",
    '  subresources: ["status"],',
    "});",
    "",
    'it("stores the create handler\'s result in the status", async () => {',
    "  const runner = await KopfRunner.start({",
    `    args: ["run", join(root, "src/handlers.ts"), ${servedArgs(o)
      .map((arg) => JSON.stringify(arg))
      .join(", ")}, "--standalone"],`,
    "    cli: Cli.main,",
    "    cwd: root,",
    "  });",
    '  await runner.apply("crd.yaml");',
    '  await runner.apply("example.yaml");',
    `  const body = await runner.waitFor(${resourceConstant(o)}, "example", "${o.namespace}", (b) => b?.status?.${createId(o)} !== undefined);`,
    `  expect(body?.status?.${createId(o)}).toEqual({ message: "created: hello", replicas: 2 });`,
    "  await runner.stop();",
    "  expect(runner.exitCode).toBe(0);",
    `  expect(runner.output).toContain("[${o.namespace}/example] Handler '${createId(o)}' succeeded.");`,
    "}, 60_000); // an operator and an emulator start: more than vitest's default 5 s on a busy machine",
  );
