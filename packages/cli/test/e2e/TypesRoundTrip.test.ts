/**
 * `kopf types` on a third-party CRD as a cluster serves it (the emulator in the default suite, a
 * real kube-apiserver in the real tier): a hand-written CRD (`fixtures/thirdparty-crd.yaml`) is
 * applied and read back, with what the server fills in; `kopf types` turns that YAML into a
 * module; the module's resource gives (through `Crd.fromResource`, as `kopf crd` prints it) the
 * same names, scope and versions — the spec and status schemas, printer columns, subresources —
 * with kopf's own root of each version's schema, and the server takes it in place of the
 * original and stores it as it is. An object the server stored under the
 * CRD decodes with the module's Schemas into exactly what the server stored.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KubeApi } from "@kopf/client";
import { Crd, CustomResource } from "@kopf/resources";
import { Applying, Clusters } from "@kopf/testing";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as kopf from "kopf";
import { expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { Cli } from "../../src/index.ts";
import { evaluate } from "../fixtures/generatedModule.ts";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/thirdparty-crd.yaml");

const crds = kopf.Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
});
const mirrors = kopf.Resource.make({
  group: "storage.example.org",
  version: "v1",
  plural: "mirrors",
  kind: "Mirror",
  namespaced: true,
});

/**
 * The root kopf gives each version's schema (see "Types from an existing CRD" in the typed
 * resources guide): apiVersion, kind and metadata declared, `spec` required, a description naming
 * the version, and a status that keeps anything where the version has the status subresource but
 * no status schema.
 */
const kopfRoot = (version: any) => {
  const { spec, status } = version.schema.openAPIV3Schema.properties;
  const withStatus = status !== undefined || version.subresources?.status !== undefined;
  return {
    type: "object",
    description: `${version.name} of the resource`,
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec,
      ...(withStatus ? { status: status ?? { "x-kubernetes-preserve-unknown-fields": true } } : {}),
    },
    required: ["spec"],
  };
};

/**
 * What a CRD defines (no metadata, no status), `required` lists sorted: they are sets, and the
 * generated ones follow the order of the properties (which kube-apiserver serves sorted).
 */
const definition = (crd: any) =>
  JSON.parse(JSON.stringify(crd.spec), (key, value) =>
    key === "required" && Array.isArray(value) ? [...value].sort() : value,
  );

it("kopf types of a served third-party CRD declares a resource whose CRD the server stores unchanged", async () => {
  await using cluster = await Clusters.build(Clusters.selected());
  const run = <A>(effect: Effect.Effect<A, unknown, KubeApi>) =>
    Effect.runPromise(effect.pipe(Effect.provide(cluster.context)));
  const api = <A>(use: (api: KubeApi["Service"]) => Effect.Effect<A, unknown>) =>
    run(
      Effect.gen(function* () {
        return yield* use(yield* KubeApi);
      }),
    );
  const served = () => api((kube) => kube.get(crds, { name: "mirrors.storage.example.org" }));

  await run(
    Applying.apply([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } },
      parse(await readFile(fixture, "utf8")),
    ]),
  );
  const original = await served();

  // `kopf types` of the CRD as the server has it.
  const dir = await mkdtemp(join(tmpdir(), "kopf-types-"));
  await writeFile(join(dir, "crd.yaml"), stringify(original));
  let module = "";
  const result = await Cli.main(["types", join(dir, "crd.yaml")], {
    stdout: (text) => {
      module += text;
    },
    stderr: () => undefined,
  });
  expect(result.exitCode).toBe(0);
  const Mirror = evaluate(module, "Mirror");
  const generated = Result.getOrThrow(Crd.fromResource(Mirror));

  // The same names, scope, versions, subschemas, printer columns and subresources; only the
  // root of each version's schema is kopf's own.
  expect(definition(generated)).toEqual({
    ...definition(original),
    versions: definition(original).versions.map((v: any) => ({
      ...v,
      schema: { openAPIV3Schema: kopfRoot(v) },
    })),
  });
  // The server takes it in place of the original, and stores it as it is.
  await run(Applying.apply([generated]));
  expect(definition(await served())).toEqual(definition(generated));

  // An object stored under the CRD decodes into what the server stored (its defaults included).
  const stored: any = await api((kube) =>
    kube.create(
      mirrors,
      {
        apiVersion: "storage.example.org/v1",
        kind: "Mirror",
        metadata: { name: "mirror-1", namespace: "default" },
        spec: {
          source: "vol/data",
          schedule: "0 * * * *",
          port: "http",
          retention: null,
          targets: [{ name: "east", weight: 20 }],
          options: { compress: true, level: 9 },
          template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "t" }, data: { a: "b" } },
        },
      } as never,
      { namespace: "default" },
    ),
  );
  expect(stored.spec).toMatchObject({ replicas: 1, mode: "sync" });
  const decoded = (Mirror as any)[CustomResource.SERVED].decode(stored);
  expect(decoded).toEqual(Result.succeed(stored));
});
