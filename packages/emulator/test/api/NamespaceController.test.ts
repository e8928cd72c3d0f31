/**
 * The namespace controllers: every namespace (the default ones at start, new ones shortly after
 * they appear, on the TestClock) gets the `default` ServiceAccount and the `kube-root-ca.crt`
 * ConfigMap, recreated when deleted, with the CA `setRootCa` publishes; nothing is created in a
 * namespace that is already terminating.
 */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { TestClock } from "effect/testing";
import { describe, expect, it } from "vitest";
import { KubeEmulator } from "../../src/api/Emulator.ts";
import * as NamespaceController from "../../src/api/NamespaceController.ts";
import { runOnTestClock, send } from "./Harness.ts";

const onTestClock = <A, E>(effect: Effect.Effect<A, E, KubeEmulator>): Promise<A> =>
  runOnTestClock(effect, { namespaceControllers: true, namespaceControllerDelay: "50 millis" });

const contentOf = (namespace: string) =>
  Effect.gen(function* () {
    const sa = yield* send("GET", `/api/v1/namespaces/${namespace}/serviceaccounts/default`);
    const ca = yield* send("GET", `/api/v1/namespaces/${namespace}/configmaps/kube-root-ca.crt`);
    return { sa, ca };
  });

describe("namespace controllers", () => {
  it.each(["default", "kube-system", "kube-public", "kube-node-lease"])(
    "the %s namespace has its content from the start",
    async (namespace) => {
      const { sa, ca } = await onTestClock(contentOf(namespace));
      expect(sa.status).toBe(200);
      expect(sa.body.metadata.namespace).toBe(namespace);
      expect(ca.status).toBe(200);
      expect(ca.body.metadata.annotations).toEqual({
        "kubernetes.io/description": NamespaceController.ROOT_CA_DESCRIPTION,
      });
      expect(Object.keys(ca.body.data)).toEqual(["ca.crt"]);
    },
  );

  it("fill a new namespace after the delay, on the Clock", async () => {
    const r = await onTestClock(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces", { metadata: { name: "team-a" } });
        const before = yield* contentOf("team-a");
        yield* TestClock.adjust("50 millis");
        const after = yield* contentOf("team-a");
        return { before, after };
      }),
    );
    expect([r.before.sa.status, r.before.ca.status]).toEqual([404, 404]);
    expect([r.after.sa.status, r.after.ca.status]).toEqual([200, 200]);
    expect(r.after.ca.body.metadata.managedFields.map((m: any) => m.manager)).toEqual([
      "kube-controller-manager",
    ]);
  });

  it("recreate the ServiceAccount and the ConfigMap when they are deleted", async () => {
    const r = await onTestClock(
      Effect.gen(function* () {
        const old = yield* contentOf("default");
        yield* send("DELETE", "/api/v1/namespaces/default/serviceaccounts/default");
        yield* send("DELETE", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt");
        const gone = yield* contentOf("default");
        yield* TestClock.adjust("50 millis");
        return { old, gone, back: yield* contentOf("default") };
      }),
    );
    expect([r.gone.sa.status, r.gone.ca.status]).toEqual([404, 404]);
    expect([r.back.sa.status, r.back.ca.status]).toEqual([200, 200]);
    expect(r.back.sa.body.metadata.uid).not.toBe(r.old.sa.body.metadata.uid);
  });

  it("publish the CA given to setRootCa in every namespace", async () => {
    const r = await onTestClock(
      Effect.gen(function* () {
        const kube = yield* KubeEmulator;
        yield* send("POST", "/api/v1/namespaces", { metadata: { name: "team-b" } });
        yield* TestClock.adjust("50 millis");
        yield* kube.setRootCa("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        return [yield* contentOf("team-b"), yield* contentOf("kube-system")];
      }),
    );
    for (const { ca } of r)
      expect(ca.body.data["ca.crt"]).toBe("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  });

  it("create nothing in a namespace deleted before they act", async () => {
    const r = await onTestClock(
      Effect.gen(function* () {
        yield* send("POST", "/api/v1/namespaces", { metadata: { name: "brief" } });
        yield* send("DELETE", "/api/v1/namespaces/brief");
        yield* TestClock.adjust("50 millis");
        return yield* send("GET", "/api/v1/serviceaccounts?fieldSelector=metadata.namespace%3Dbrief");
      }),
    );
    expect(r.body.items).toEqual([]);
  });

  it("can be turned off", async () => {
    const r = await Effect.runPromise(
      Effect.scoped(
        Layer.build(KubeEmulator.layer({ namespaceControllers: false })).pipe(
          Effect.flatMap((ctx) => Effect.provide(send("GET", "/api/v1/configmaps"), ctx)),
        ),
      ),
    );
    expect(r.body.items).toEqual([]);
  });

  it("send the controllers' requests, as their service accounts", () => {
    const requests = NamespaceController.requestsFor("team-a", "PEM");
    expect(requests.map((q) => `${q.method} ${q.path} ${q.user.username}`)).toEqual([
      "POST /api/v1/namespaces/team-a/serviceaccounts system:serviceaccount:kube-system:service-account-controller",
      "POST /api/v1/namespaces/team-a/configmaps system:serviceaccount:kube-system:root-ca-cert-publisher",
    ]);
  });
});
