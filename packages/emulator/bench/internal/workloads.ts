// The emulator benchmark's workloads, written against a `send` of one request (over HTTPS or
// straight to `emulator.handle`): the bench's CRD, the example object, and the kinds of writes
// measured (creates, merge, JSON and status patches, an operator-like mix).

/** Sends one request; resolves with its HTTP status (0 when it could not be sent). */
export type Send = (method: string, path: string, body?: unknown, contentType?: string) => Promise<number>;

/** One kind of write: a step makes `writesPerStep` writes and says whether all succeeded. */
export interface Workload {
  readonly name: string;
  readonly writesPerStep: number;
  /** A request that writes nothing (no watch events), shown for reference, not against the target. */
  readonly reference?: boolean;
  readonly step: (round: string, client: number, i: number) => Promise<boolean>;
}

export const GROUP = "kopf.dev";
export const PLURAL = "kopfexamples";
export const BASE = `/apis/${GROUP}/v1/namespaces/default/${PLURAL}`;
/** Objects each client loop patches in turn (so that concurrent patches never collide). */
export const PER_CLIENT = 8;

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: "KopfExample", plural: PLURAL, singular: "kopfexample", shortNames: ["kex"] },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  field: { type: "string" },
                  items: { type: "array", items: { type: "string" } },
                  duration: { type: "string", default: "1m" },
                },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
};

export const example = (name: string) => ({
  apiVersion: `${GROUP}/v1`,
  kind: "KopfExample",
  metadata: { name, labels: { app: "bench" } },
  spec: { field: "value", items: ["item1", "item2"] },
});

/** Creates the bench's CRD and waits until its resources are served; `where` names the emulator in errors. */
export const installCrd = async (send: Send, where: string): Promise<void> => {
  if ((await send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)) !== 201)
    throw new Error(`the bench's CRD was refused${where}`);
  for (let tries = 0; (await send("GET", BASE)) !== 200; tries++) {
    if (tries > 100) throw new Error(`the bench's CRD was never served${where}`);
    await new Promise((done) => setTimeout(done, 20));
  }
};

/** The object a patch phase's client loop writes at its step `i`. */
export const patched = (client: number, i: number) => `p-${client}-${i % PER_CLIENT}`;

/** Creates the objects the patch phases write; how many were created. */
export const createPatched = async (send: Send, connections: number): Promise<number> => {
  let created = 0;
  for (let client = 0; client < connections; client++)
    for (let k = 0; k < PER_CLIENT; k++)
      if ((await send("POST", BASE, example(patched(client, k)))) === 201) created++;
  return created;
};

const MERGE_PATCH = "application/merge-patch+json";

/** A workload of PATCHes to the patch phases' objects (`suffix`: a subresource's path). */
const patching = (
  send: Send,
  name: string,
  suffix: string,
  body: (mark: string) => unknown,
  contentType: string,
): Workload => ({
  name,
  writesPerStep: 1,
  step: async (round, client, i) =>
    (await send("PATCH", `${BASE}/${patched(client, i)}${suffix}`, body(`${round}${i}`), contentType)) ===
    200,
});

/** The writes measured, after `references` (requests shown for comparison only). */
export const workloads = (send: Send, references: ReadonlyArray<Workload>): ReadonlyArray<Workload> => [
  ...references,
  {
    name: "reference: GET /healthz",
    writesPerStep: 1,
    reference: true,
    step: async () => (await send("GET", "/healthz")) === 200,
  },
  {
    name: "creates (POST)",
    writesPerStep: 1,
    step: async (round, client, i) => (await send("POST", BASE, example(`c${round}-${client}-${i}`))) === 201,
  },
  patching(send, "merge patches (PATCH)", "", (mark) => ({ metadata: { labels: { n: mark } } }), MERGE_PATCH),
  patching(
    send,
    "JSON patches (PATCH)",
    "",
    (mark) => [{ op: "replace", path: "/spec/field", value: mark }],
    "application/json-patch+json",
  ),
  patching(
    send,
    "status patches (PATCH /status)",
    "/status",
    (mark) => ({ status: { n: mark } }),
    MERGE_PATCH,
  ),
  {
    name: "operator mix (create + 2 patches)",
    writesPerStep: 3,
    step: async (round, client, i) => {
      const name = `m${round}-${client}-${i}`;
      const created = await send("POST", BASE, example(name));
      const annotated = await send(
        "PATCH",
        `${BASE}/${name}`,
        {
          metadata: { annotations: { "kopf.zalando.org/last-handled-configuration": `{"spec":{"n":${i}}}` } },
        },
        MERGE_PATCH,
      );
      const status = await send(
        "PATCH",
        `${BASE}/${name}/status`,
        { status: { create_fn: { ok: true } } },
        MERGE_PATCH,
      );
      return created === 201 && annotated === 200 && status === 200;
    },
  },
];

/**
 * Runs `steps` steps of a workload from `loops` concurrent loops; how many steps succeeded and
 * failed.
 */
export const runSteps = async (
  workload: Workload,
  round: string,
  steps: number,
  loops: number,
): Promise<{ readonly ok: number; readonly failed: number }> => {
  let next = 0;
  let ok = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: loops }, async (_, client) => {
      while (next < steps) {
        if (await workload.step(round, client, next++)) ok++;
        else failed++;
      }
    }),
  );
  return { ok, failed };
};
