/** Server-side printing: Tables for kubectl (lists, objects, watch events), custom resources' printer columns, and HumanDuration ages. */
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import { describe, expect, it } from "vitest";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import { humanDuration } from "../../src/api/Tables.ts";
import { cm, request, run, send } from "./Harness.ts";

const TABLE = {
  accept:
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
};

describe("HumanDuration", () => {
  it.each([
    [-5000, "<invalid>"],
    [-1000, "0s"],
    [0, "0s"],
    [119_000, "119s"],
    [120_000, "2m"],
    [125_000, "2m5s"],
    [600_000, "10m"],
    [3 * 3600_000, "3h"],
    [3 * 3600_000 + 60_000, "3h1m"],
    [47 * 3600_000, "47h"],
    [50 * 3600_000, "2d2h"],
    [10 * 86400_000, "10d"],
    [800 * 86400_000, "2y70d"],
    [3000 * 86400_000, "8y"],
  ])("%i ms is %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe("tables", () => {
  it("print configmaps with their Data column", async () => {
    const r = await run(
      send("POST", "/api/v1/namespaces/default/configmaps", cm("x")).pipe(
        Effect.andThen(send("GET", "/api/v1/namespaces/default/configmaps", undefined, TABLE)),
      ),
    );
    expect(r.body.kind).toBe("Table");
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(r.body.rows[0].cells.slice(0, 2)).toEqual(["x", 1]);
    expect(r.body.rows[0].object).toMatchObject({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: { name: "x" },
    });
  });

  it("print custom resources with their printer columns", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "widgets.kopf.dev" },
          spec: {
            group: "kopf.dev",
            scope: "Namespaced",
            names: { plural: "widgets", kind: "Widget" },
            versions: [
              {
                name: "v1",
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
                additionalPrinterColumns: [
                  { name: "Size", type: "integer", jsonPath: ".spec.size" },
                  { name: "Phase", type: "string", jsonPath: ".status.phase" },
                ],
              },
            ],
          },
        });
        yield* send("POST", "/apis/kopf.dev/v1/namespaces/default/widgets", {
          apiVersion: "kopf.dev/v1",
          kind: "Widget",
          metadata: { name: "w" },
          spec: { size: 3 },
        });
        return yield* send(
          "GET",
          "/apis/kopf.dev/v1/namespaces/default/widgets/w?includeObject=None",
          undefined,
          TABLE,
        );
      }),
    );
    expect(r.body.columnDefinitions.map((c: any) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Size", "integer"],
      ["Phase", "string"],
    ]);
    expect(r.body.rows).toEqual([{ cells: ["w", 3, null], object: null }]);
  });
});

describe("watches as Tables", () => {
  it("sends each event's object as a one-row Table, with the column definitions only in the first", async () => {
    const events = await run(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces/default/configmaps", cm("w1"));
        const kube = yield* KubeEmulator;
        const response = yield* kube.handle(
          request("GET", "/api/v1/namespaces/default/configmaps?watch=1", undefined, TABLE),
        );
        if (response._tag !== "Streaming") throw new Error("expected a watch stream");
        yield* send("POST", "/api/v1/namespaces/default/configmaps", cm("w2"));
        const chunks = yield* Stream.runCollect(Stream.take(response.body, 2));
        return [...chunks].map((c) => JSON.parse(new TextDecoder().decode(c)));
      }),
    );
    expect(events.map((e) => e.type)).toEqual(["ADDED", "ADDED"]);
    const [first, second] = events.map((e) => e.object);
    expect(first).toMatchObject({ kind: "Table", apiVersion: "meta.k8s.io/v1" });
    expect(first.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(first.rows).toMatchObject([
      { cells: ["w1", 1, expect.any(String)], object: { kind: "PartialObjectMetadata" } },
    ]);
    expect(first.metadata.resourceVersion).toBe(first.rows[0].object.metadata.resourceVersion);
    expect(second.columnDefinitions).toBeNull();
    expect(second.rows[0].cells[0]).toBe("w2");
  });
});
