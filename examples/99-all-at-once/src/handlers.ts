/**
 * Kopf's example 99: everything together — startup (one retried) and cleanup activities, several
 * create handlers with results and events, a handler failing once and retried, update and field
 * handlers, a delete handler, a child Pod adopted and labelled and created with
 * kubernetes-fluent-client, and an event handler for the labelled pods.
 */
import * as kopf from "kopf";
import { K8s, kind } from "kubernetes-fluent-client";

const sleep = (seconds: number) => new Promise((done) => setTimeout(done, seconds * 1000));

kopf.on.startup(async function startup_fn_simple({ logger }) {
  logger.info("Starting in 1s...");
  await sleep(1);
});

kopf.on.startup(async function startup_fn_retried({ retry, logger }) {
  if (retry < 3) {
    throw new kopf.TemporaryError(`Going to succeed in ${3 - retry}s`, { delay: 1 });
  }
  logger.info("Starting retried...");
});

kopf.on.cleanup(async function cleanup_fn({ logger }) {
  logger.info("Cleaning up in 3s...");
  await sleep(3);
});

kopf.on.create("kopfexamples", function create_1({ body }) {
  const children = createChildren(body);

  kopf.info(body, { reason: "AnyReason" });
  kopf.event(body, { type: "Warning", reason: "SomeReason", message: "Cannot do something" });
  kopf.event(children, { type: "Normal", reason: "SomeReason", message: "Created as part of the job1step" });

  return { "job1-status": 100 };
});

// Retried after 1 second instead of the default 60 (so the example finishes quickly).
kopf.on.create("kopfexamples", { backoff: 1 }, function create_2({ retry }) {
  waitForSomething(); // specific for job2, e.g. an external API poller

  if (!retry) {
    // will be retried by the framework, even if it has been restarted
    throw new Error("Whoops!");
  }

  return { "job2-status": 100 };
});

kopf.on.update("kopfexamples", function update({ diff, logger }) {
  logger.info(`Handling the diff: ${JSON.stringify(diff)}`);
});

kopf.on.field("kopfexamples", { field: "spec.lst" }, function update_lst({ old, new: value, logger }) {
  logger.info(`Handling the FIELD = ${JSON.stringify(old)} -> ${JSON.stringify(value)}`);
});

kopf.on.delete("kopfexamples", function delete_() {});

function createChildren(_owner: kopf.RawBody): Array<kopf.RawBody> {
  return [];
}

/** Intentionally blocking the event loop for a second (a sync call to a slow API, say). */
function waitForSomething(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

kopf.on.create("kopfexamples", async function create_pod({ body }) {
  // Render the pod with some spec fields used in the template.
  const pod: kopf.Obj = {
    apiVersion: "v1",
    kind: "Pod",
    spec: {
      containers: [{ name: "the-only-one", image: "busybox", command: ["sh", "-x", "-c", "sleep 1"] }],
    },
  };

  // Make it our child: assign the namespace, name, labels, owner references, etc.
  kopf.adopt(pod, body);
  kopf.label(pod, { application: "kopf-example-10" });

  // Actually create an object by requesting the Kubernetes API.
  await K8s(kind.Pod).Create(pod as kind.Pod);
});

kopf.on.event(
  "pods",
  { labels: { application: "kopf-example-10" } },
  function example_pod_change({ logger }) {
    logger.info("This pod is special for us.");
  },
);
