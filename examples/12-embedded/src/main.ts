/**
 * Kopf's example 12: an application that runs the operator in the background of its own work
 * (`kopf.operator()` with an `AbortSignal` to stop it, `ready` to wait for it, a custom memo),
 * creates and deletes a few objects with kubernetes-fluent-client meanwhile, then stops the
 * operator gracefully and waits for it.
 *
 * Run it with `node src/main.ts` (the cluster comes from `$KUBECONFIG`).
 */
import * as kopf from "kopf";
import { GenericKind, K8s, RegisterKind } from "kubernetes-fluent-client";
import "./handlers.ts";

class KopfExample extends GenericKind {}
RegisterKind(KopfExample, { group: "kopf.dev", version: "v1", kind: "KopfExample", plural: "kopfexamples" });

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const statusOf = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && "status" in error ? Number(error.status) : undefined;

async function createObject(step: number): Promise<void> {
  try {
    await K8s(KopfExample).Create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { namespace: "default", name: `kopf-example-${step}` },
    });
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
  }
}

async function deleteObject(step: number): Promise<void> {
  try {
    await K8s(KopfExample).InNamespace("default").Delete(`kopf-example-${step}`);
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
}

/** The application: start the operator, do the work, stop the operator. */
export async function main(options: { steps?: number; pause?: number; say?: (text: string) => void } = {}) {
  const { steps = 3, pause = 1000, say = console.log } = options;

  // Start the operator and let it initialise.
  say("Starting the main app.");
  kopf.configure({ level: "Debug" }); // log formatting
  const stop = new AbortController();
  const operator = kopf.operator({
    namespaces: ["default"],
    standalone: true,
    signal: stop.signal,
    memo: { createTpl: "Hello, {name}!", deleteTpl: "Good bye, {name}!" },
  });
  await operator.ready;

  // The operator is active: run the app's activity.
  for (let step = 0; step < steps; step++) {
    say(`Do the main app activity here. Step ${step + 1}/${steps}.`);
    await createObject(step);
    await sleep(pause);
    await deleteObject(step);
    await sleep(pause);
  }

  // Ask the operator to terminate gracefully (can take a couple of seconds).
  say("Exiting the main app.");
  stop.abort();
  await operator.done;
}

if (import.meta.main) await main();
