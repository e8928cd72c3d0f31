/** Deletion: finalizers and deletionTimestamp, preconditions, propagation policies, garbage collection of dependents, namespace termination. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import type { AdmissionHookShape, AdmissionRequest } from "../../src/api/Admission.ts";
import { allow } from "../../src/api/Admission.ts";
import { CRD, cm, run, send } from "./Harness.ts";

/** An admission hook that records DELETE reviews and denies those of names in `deny`. */
const recordingDeletes = (deny: ReadonlyArray<string> = []) => {
  const seen: Array<AdmissionRequest> = [];
  const hook: AdmissionHookShape = {
    mutate: () => Effect.succeed(allow),
    validate: (request) =>
      Effect.sync(() => {
        if (request.operation !== "DELETE") return allow;
        seen.push(request);
        return deny.includes(request.name)
          ? {
              _tag: "Deny" as const,
              status: {
                kind: "Status",
                apiVersion: "v1",
                metadata: {},
                status: "Failure",
                message: "held by policy",
                reason: "Forbidden",
                code: 403,
              },
            }
          : allow;
      }),
  };
  return { seen, hook };
};

const NS = "/api/v1/namespaces/default/configmaps";
const MERGE = { "content-type": "application/merge-patch+json" };

/** Lets the background controllers run. */
const settle = Effect.sleep("20 millis");

describe("finalizers", () => {
  it("marks an object with finalizers and removes it when the last one goes", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x", { finalizers: ["kopf.dev/a", "kopf.dev/b"] }));
        const marked = yield* send("DELETE", `${NS}/x`);
        const again = yield* send("DELETE", `${NS}/x`);
        const addNew = yield* send(
          "PATCH",
          `${NS}/x`,
          { metadata: { finalizers: ["kopf.dev/a", "kopf.dev/b", "kopf.dev/c"] } },
          MERGE,
        );
        const one = yield* send("PATCH", `${NS}/x`, { metadata: { finalizers: ["kopf.dev/b"] } }, MERGE);
        const last = yield* send("PATCH", `${NS}/x`, { metadata: { finalizers: null } }, MERGE);
        const gone = yield* send("GET", `${NS}/x`);
        return { marked, again, addNew, one, last, gone };
      }),
    );
    expect(r.marked.status).toBe(200);
    expect(r.marked.body.metadata.deletionTimestamp).toMatch(/Z$/);
    expect(r.marked.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(r.again.status).toBe(200);
    expect(r.again.body.metadata.resourceVersion).toBe(r.marked.body.metadata.resourceVersion);
    expect(r.addNew.status).toBe(422);
    expect(r.addNew.body.message).toBe(
      'ConfigMap "x" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"kopf.dev/c"}',
    );
    expect(r.one.status).toBe(200);
    expect(r.one.body.metadata.finalizers).toEqual(["kopf.dev/b"]);
    expect(r.last.status).toBe(200);
    expect(r.gone.status).toBe(404);
  });

  it("answers a Success Status for configmaps and the object for pods", async () => {
    const r = await run(
      Effect.gen(function* () {
        const c = yield* send("POST", NS, cm("x"));
        const deleted = yield* send("DELETE", `${NS}/x`);
        yield* send("POST", "/api/v1/namespaces/default/pods", {
          metadata: { name: "p" },
          spec: { containers: [{ name: "c", image: "i" }] },
        });
        const pod = yield* send("DELETE", "/api/v1/namespaces/default/pods/p");
        return { c, deleted, pod };
      }),
    );
    expect(r.deleted.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "x", kind: "configmaps", uid: r.c.body.metadata.uid },
    });
    expect(r.pod.body.kind).toBe("Pod");
  });

  it("answers a Success Status naming the group for custom resources", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD);
        const created = yield* send("POST", "/apis/kopf.dev/v1/namespaces/default/kopfexamples", {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          metadata: { name: "k" },
        });
        const deleted = yield* send("DELETE", "/apis/kopf.dev/v1/namespaces/default/kopfexamples/k");
        return { created, deleted };
      }),
    );
    expect(r.deleted.status).toBe(200);
    expect(r.deleted.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "k", group: "kopf.dev", kind: "kopfexamples", uid: r.created.body.metadata.uid },
    });
  });

  it.each([
    [
      "uid",
      { preconditions: { uid: "other" } },
      /^Operation cannot be fulfilled on ConfigMap "x": the UID in the precondition \(other\) does not match the UID in record \([0-9a-f-]+\)\. The object might have been deleted and then recreated$/,
    ],
    [
      "resourceVersion",
      { preconditions: { resourceVersion: "1" } },
      /^Operation cannot be fulfilled on ConfigMap "x": the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record \(\d+\)\. The object might have been modified$/,
    ],
  ])("checks the %s precondition", async (_n, options, message) => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        return yield* send("DELETE", `${NS}/x`, options);
      }),
    );
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe("Conflict");
    expect(r.body.details).toEqual({ name: "x", kind: "ConfigMap" });
    expect(r.body.message).toMatch(message);
  });
});

describe("garbage collection", () => {
  const owned = (name: string, owner: any, extra: Record<string, unknown> = {}) =>
    cm(name, {
      ownerReferences: [
        { apiVersion: "v1", kind: "ConfigMap", name: owner.metadata.name, uid: owner.metadata.uid, ...extra },
      ],
    });

  it("deletes dependents of a deleted owner in the background", async () => {
    const r = await run(
      Effect.gen(function* () {
        const owner = yield* send("POST", NS, cm("owner"));
        yield* send("POST", NS, owned("child", owner.body));
        yield* send("DELETE", `${NS}/owner`);
        yield* settle;
        return yield* send("GET", `${NS}/child`);
      }),
    );
    expect(r.status).toBe(404);
  });

  it("deletes dependents through admission, as the generic-garbage-collector; a denied delete keeps the dependent", async () => {
    const { seen, hook } = recordingDeletes(["kept"]);
    const r = await run(
      Effect.gen(function* () {
        const owner = yield* send("POST", NS, cm("owner"));
        yield* send("POST", NS, owned("child", owner.body));
        yield* send("POST", NS, owned("kept", owner.body));
        yield* send("DELETE", `${NS}/owner`);
        yield* settle;
        return { child: yield* send("GET", `${NS}/child`), kept: yield* send("GET", `${NS}/kept`) };
      }),
      { admission: hook },
    );
    expect(r.child.status).toBe(404);
    expect(r.kept.status).toBe(200);
    const byGc = seen.filter((q) => q.name !== "owner");
    // A denied delete is retried on the controllers' next passes, as the real ones retry.
    expect([...new Set(byGc.map((q) => q.name))].sort()).toEqual(["child", "kept"]);
    for (const q of byGc) {
      expect(q.userInfo.username).toBe("system:serviceaccount:kube-system:generic-garbage-collector");
      expect(q.options).toMatchObject({ propagationPolicy: "Background" });
    }
  });

  it("orphans dependents with propagationPolicy=Orphan", async () => {
    const r = await run(
      Effect.gen(function* () {
        const owner = yield* send("POST", NS, cm("owner"));
        yield* send("POST", NS, owned("child", owner.body));
        const marked = yield* send("DELETE", `${NS}/owner?propagationPolicy=Orphan`);
        yield* settle;
        const child = yield* send("GET", `${NS}/child`);
        const gone = yield* send("GET", `${NS}/owner`);
        return { marked, child, gone };
      }),
    );
    expect(r.marked.body.metadata.finalizers).toEqual(["orphan"]);
    expect(r.child.status).toBe(200);
    expect(r.child.body.metadata.ownerReferences).toBeUndefined();
    expect(r.gone.status).toBe(404);
  });

  it("keeps a foreground owner until its blocking dependents are gone", async () => {
    const r = await run(
      Effect.gen(function* () {
        const owner = yield* send("POST", NS, cm("owner"));
        yield* send("POST", NS, {
          ...owned("child", owner.body, { blockOwnerDeletion: true }),
          metadata: {
            ...owned("child", owner.body, { blockOwnerDeletion: true }).metadata,
            finalizers: ["kopf.dev/hold"],
          },
        });
        const marked = yield* send("DELETE", `${NS}/owner`, { propagationPolicy: "Foreground" });
        yield* settle;
        const waiting = yield* send("GET", `${NS}/owner`);
        const child = yield* send("GET", `${NS}/child`);
        yield* send("PATCH", `${NS}/child`, { metadata: { finalizers: null } }, MERGE);
        yield* settle;
        const after = yield* send("GET", `${NS}/owner`);
        return { marked, waiting, child, after };
      }),
    );
    expect(r.marked.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
    expect(r.waiting.status).toBe(200);
    expect(r.child.body.metadata.deletionTimestamp).toBeDefined();
    expect(r.after.status).toBe(404);
  });

  it("deletes objects whose owner never existed", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send(
          "POST",
          NS,
          owned("child", { metadata: { name: "ghost", uid: "00000000-0000-4000-8000-000000000000" } }),
        );
        yield* settle;
        return yield* send("GET", `${NS}/child`);
      }),
    );
    expect(r.status).toBe(404);
  });
});

describe("namespaces", () => {
  it("terminates: content is deleted, then the namespace", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces", { metadata: { name: "ns1" } });
        yield* send("POST", "/api/v1/namespaces/ns1/configmaps", cm("x", { finalizers: ["kopf.dev/hold"] }));
        const marked = yield* send("DELETE", "/api/v1/namespaces/ns1");
        yield* settle;
        const creating = yield* send("POST", "/api/v1/namespaces/ns1/configmaps", cm("y"));
        const terminating = yield* send("GET", "/api/v1/namespaces/ns1");
        yield* send(
          "PATCH",
          "/api/v1/namespaces/ns1/configmaps/x",
          { metadata: { finalizers: null } },
          MERGE,
        );
        yield* settle;
        const gone = yield* send("GET", "/api/v1/namespaces/ns1");
        return { marked, creating, terminating, gone };
      }),
    );
    expect(r.marked.status).toBe(200);
    expect(r.marked.body.status.phase).toBe("Terminating");
    expect(r.creating.status).toBe(403);
    expect(r.creating.body.message).toBe(
      'configmaps "y" is forbidden: unable to create new content in namespace ns1 because it is being terminated',
    );
    expect(r.terminating.status).toBe(200);
    expect(r.gone.status).toBe(404);
  });

  it("stays Terminating while content is left, deleting it through admission as the namespace-controller", async () => {
    const { seen, hook } = recordingDeletes(["held"]);
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces", { metadata: { name: "ns2" } });
        yield* send("POST", "/api/v1/namespaces/ns2/configmaps", cm("held"));
        yield* send("POST", "/api/v1/namespaces/ns2/configmaps", cm("free"));
        yield* send("DELETE", "/api/v1/namespaces/ns2");
        yield* settle;
        const held = yield* send("GET", "/api/v1/namespaces/ns2/configmaps/held");
        const free = yield* send("GET", "/api/v1/namespaces/ns2/configmaps/free");
        const ns = yield* send("GET", "/api/v1/namespaces/ns2");
        return { held, free, ns };
      }),
      { admission: hook },
    );
    expect(r.held.status).toBe(200);
    expect(r.free.status).toBe(404);
    expect(r.ns.status).toBe(200);
    expect(r.ns.body.status.phase).toBe("Terminating");
    const byController = seen.filter((q) => q.namespace === "ns2");
    expect([...new Set(byController.map((q) => q.name))].sort()).toEqual(["free", "held"]);
    for (const q of byController)
      expect(q.userInfo.username).toBe("system:serviceaccount:kube-system:namespace-controller");
  });

  it("refuses to delete default namespaces", async () => {
    const r = await run(send("DELETE", "/api/v1/namespaces/default"));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});

describe("deletecollection", () => {
  it("deletes the selected objects and answers them as a list", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("a", { labels: { t: "1" } }));
        yield* send("POST", NS, cm("b", { labels: { t: "2" } }));
        const deleted = yield* send("DELETE", `${NS}?labelSelector=t%3D1`);
        const left = yield* send("GET", NS);
        return { deleted, left };
      }),
    );
    expect(r.deleted.status).toBe(200);
    expect(r.deleted.body.kind).toBe("ConfigMapList");
    expect(r.deleted.body.items.map((i: any) => i.metadata.name)).toEqual(["a"]);
    expect(r.left.body.items.map((i: any) => i.metadata.name)).toEqual(["b"]);
  });
});

describe("DeleteOptions from the body or the query", () => {
  // kube-apiserver v1.34.4: a DELETE with a body takes its options from the body only, so a
  // `?dryRun=All` next to a body did not make it a dry run; webhooks get the options in Go's
  // field order.
  it("ignores the query when there is a body", async () => {
    const { seen, hook } = recordingDeletes();
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        const deleted = yield* send("DELETE", `${NS}/x?dryRun=All`, {
          propagationPolicy: "Background",
          gracePeriodSeconds: 0,
        });
        return { deleted, after: yield* send("GET", `${NS}/x`) };
      }),
      { admission: hook },
    );
    expect(r.deleted.status).toBe(200);
    expect(r.after.status).toBe(404);
    expect(seen[0]?.dryRun).toBe(false);
    expect(JSON.stringify(seen[0]?.options)).toBe(
      '{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","gracePeriodSeconds":0,"propagationPolicy":"Background"}',
    );
  });

  it.each([
    ["a body's dryRun", "", { dryRun: ["All"], propagationPolicy: "Orphan" }],
    ["the query's, without a body", "?propagationPolicy=Orphan&dryRun=All", undefined],
  ])("a dry run by %s keeps the object and shows webhooks the options", async (_name, query, body) => {
    const { seen, hook } = recordingDeletes();
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        const deleted = yield* send("DELETE", `${NS}/x${query}`, body);
        return { deleted, after: yield* send("GET", `${NS}/x`) };
      }),
      { admission: hook },
    );
    expect(r.deleted.status).toBe(200);
    expect(r.after.status).toBe(200);
    expect(seen[0]?.dryRun).toBe(true);
    expect(JSON.stringify(seen[0]?.options)).toBe(
      '{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Orphan","dryRun":["All"]}',
    );
  });

  it("does not check the query's options next to a body", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        return yield* send("DELETE", `${NS}/x?dryRun=Some`, { propagationPolicy: "Background" });
      }),
    );
    expect(r.status).toBe(200);
  });

  it("rejects a body's dryRun other than All", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NS, cm("x"));
        return yield* send("DELETE", `${NS}/x`, { dryRun: ["Some"] });
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
    );
  });
});
