// The scenario of the least-privilege proof (LeastPrivilege.real.test.ts): `kopf run` (in-process,
// through the CLI's main) logged in with a service account's kubeconfig, while an admin client
// creates, updates and deletes a KopfExample, and each thing the operator must do is waited for:
// the create handler's result in the status, the finalizer, the events of the create handler, the
// daemon and the delete handler, the timer's status patch, the update handler's result, the
// operator's record in the peering object, the object gone after deletion (the finalizer removed,
// after a conflict the scenario provokes by changing the object while the delete handler runs, and
// the re-read that resolves it).
// The audit log is read from where it ended before the run: the service account's requests are
// counted, and a run can stop at its first 403 (enough to show that a permission was needed).
import { readFile, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as kopf from "kopf";
import { Cli } from "../../src/index.ts";
import * as Grants from "./Grants.ts";

/** Where the scenario runs and with what. */
export interface Setup {
  /** An admin's runner (any operator whose helpers reach the cluster with admin rights). */
  readonly admin: KopfRunner.KopfRunner;
  /** Where the scenario's objects are. */
  readonly namespace: string;
  /** The scope options of `kopf run`: `["-n", NAMESPACE]` or `["-A"]`. */
  readonly scope: ReadonlyArray<string>;
  /** The kubeconfig with the service account's token. */
  readonly kubeconfig: string;
  /** `system:serviceaccount:<namespace>:<name>`, as the audit log names it. */
  readonly username: string;
  readonly auditLog: string;
  readonly handlers: string;
  /** Shared by every run: the handler file is imported once per process. */
  readonly registry: kopf.Registry.Registry;
  /** The peering object of the manifests (a KopfPeering, or a ClusterKopfPeering with `-A`). */
  readonly peering: Peering;
}

/** A peering object, as in the manifests. */
export interface Peering {
  readonly apiVersion: string;
  readonly kind: "KopfPeering" | "ClusterKopfPeering";
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/** Whether a manifest is a peering object. */
export const isPeering = (object: Record<string, unknown>): object is Record<string, unknown> & Peering =>
  (object.kind === "KopfPeering" || object.kind === "ClusterKopfPeering") &&
  typeof object.metadata === "object" &&
  object.metadata !== null &&
  typeof (object.metadata as { name?: unknown }).name === "string";

/** What one run of the scenario showed. */
export interface Outcome {
  /** The first step that did not happen, or undefined when all did. */
  readonly failed: string | undefined;
  readonly requests: ReadonlyArray<Grants.Audited>;
  readonly forbidden: ReadonlyArray<Grants.Audited>;
  readonly output: string;
  /** How long each step took to happen (ms), in order. */
  readonly steps: ReadonlyArray<readonly [string, number]>;
}

const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

const sizeOf = (path: string) =>
  stat(path).then(
    (info) => info.size,
    () => 0,
  );

const auditSince = async (setup: Setup, offset: number) => {
  const text = await readFile(setup.auditLog).then(
    (buffer) => buffer.subarray(offset).toString("utf8"),
    () => "",
  );
  return Grants.requestsOf(text, setup.username);
};

class StepFailed extends Error {}

/**
 * Runs the scenario once with the service account's current permissions. `stopAtForbidden`: give
 * up at the first audited 403 (when only whether something was refused matters).
 */
export const run = async (
  setup: Setup,
  name: string,
  options: {
    readonly stopAtForbidden: boolean;
    readonly stepTimeout: number;
    /** Seconds between retries of failed requests (403 included; default: Kopf's, up to 54 s in all). */
    readonly errorBackoffs?: ReadonlyArray<number>;
  },
): Promise<Outcome> => {
  const { admin, namespace } = setup;
  // A fresh peering object: no records of earlier runs' operators.
  const peering = setup.peering;
  const peerings = peeringResource(peering);
  await admin.delete(peerings, peering.metadata.name, peering.metadata.namespace);
  await admin.apply({ ...peering });
  const offset = await sizeOf(setup.auditLog);
  const starting = Date.now();
  const operator = await KopfRunner.start({
    args: ["run", ...setup.scope, "--verbose", setup.handlers],
    cli: Cli.main,
    cluster: Clusters.kubeconfig(setup.kubeconfig),
    registry: setup.registry,
    reraise: false,
    timeout: 20_000,
    settings:
      options.errorBackoffs === undefined
        ? undefined
        : { networking: { errorBackoffs: options.errorBackoffs } },
  });
  const started = Date.now() - starting;
  const steps: Array<readonly [string, number]> = [["the operator started", started]];
  const step = async (what: string, done: () => Promise<boolean>) => {
    const started = Date.now();
    const deadline = started + options.stepTimeout;
    for (;;) {
      if (await done()) {
        steps.push([what, Date.now() - started]);
        return;
      }
      if (options.stopAtForbidden && Grants.forbidden(await auditSince(setup, offset)).length > 0) {
        throw new StepFailed(`refused (403) before: ${what}`);
      }
      if (Date.now() > deadline || operator.exitCode !== undefined) throw new StepFailed(what);
      await sleep(200);
    }
  };
  const object = () => admin.get(KopfRunner.kopfExamples, name, namespace);
  const event = (reason: string) => async () =>
    (await admin.list(KopfRunner.events, namespace)).some(
      (e) => (e.involvedObject as { name?: unknown } | undefined)?.name === name && e.reason === reason,
    );
  let failed: string | undefined;
  try {
    await admin.apply({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name, namespace } });
    await step(
      "create_fn stored its result",
      async () => (await object())?.status?.create_fn?.created === true,
    );
    await step("the finalizer was added", async () =>
      ((await object())?.metadata?.finalizers ?? []).includes(FINALIZER),
    );
    await step("create_fn posted its event", event("Created"));
    await step("daemon_fn ran (its event)", event("Daemon"));
    await step("timer_fn ran (its status patch)", async () => (await object())?.status?.ticked === true);
    await step("the operator wrote its record into the peering object", async () => {
      const status = (await admin.get(peerings, peering.metadata.name, peering.metadata.namespace))?.status;
      return typeof status === "object" && status !== null && Object.keys(status).length > 0;
    });
    await admin.patch(KopfRunner.kopfExamples, name, namespace, { spec: { field: "changed" } });
    await step(
      "update_fn stored its result",
      async () => (await object())?.status?.update_fn?.field === "changed",
    );
    await admin.delete(KopfRunner.kopfExamples, name, namespace);
    await step("delete_fn posted its event", event("Deleted"));
    // While delete_fn still runs: its cycle's patch, guarded by the version it started with, conflicts.
    await admin
      .patch(KopfRunner.kopfExamples, name, namespace, {
        metadata: { annotations: { "kopf-least-privilege/touched": "during deletion" } },
      })
      .catch((error: unknown) => {
        throw new StepFailed(`the object could not be changed while delete_fn ran: ${String(error)}`);
      });
    await step("the finalizer was removed (the object is gone)", async () => (await object()) === undefined);
    await step("the operator re-read the object after the conflict", async () =>
      (await auditSince(setup, offset)).some(
        (request) => request.verb === "get" && request.uri.endsWith(`/kopfexamples/${name}`),
      ),
    );
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
    failed = error.message;
  } finally {
    const stopping = Date.now();
    const stopped = await operator.stop().then(
      () => true,
      () => false,
    );
    if (stopped) steps.push(["the operator stopped", Date.now() - stopping]);
    else failed ??= "the operator stopped";
    // What a failed run leaves behind: the finalizer no operator will remove now.
    if ((await object()) !== undefined) {
      await admin.patch(KopfRunner.kopfExamples, name, namespace, { metadata: { finalizers: null } });
      await admin.delete(KopfRunner.kopfExamples, name, namespace);
    }
  }
  const requests = await auditSince(setup, offset);
  return { failed, requests, forbidden: Grants.forbidden(requests), output: operator.output, steps };
};

/** The resource of a peering object: `KopfPeering` (namespaced) or `ClusterKopfPeering`. */
const peeringResource = (peering: Peering) =>
  kopf.Resource.make({
    group: "kopf.dev",
    version: "v1",
    plural: peering.kind === "KopfPeering" ? "kopfpeerings" : "clusterkopfpeerings",
    kind: peering.kind,
    namespaced: peering.kind === "KopfPeering",
  });
