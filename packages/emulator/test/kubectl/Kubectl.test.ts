// Evidence with the real kubectl over HTTPS: api-resources, apply (client-side and
// --server-side), create, get -o json, get --watch, patch (merge, json, strategic; strategic
// refused for custom resources), label, annotate, delete --wait with a finalizer, and
// wait --for=condition on a CRD and on a status condition.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, describe, it } from "@effect/vitest";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import type * as Scope from "effect/Scope";
import {
  eventually,
  exampleCrd,
  exampleObject,
  kubectl,
  kubectlAvailability,
  kubectlBackground,
  startEmulator,
} from "./support.ts";

const run = <A, E>(
  body: (running: Effect.Success<ReturnType<typeof startEmulator>>) => Effect.Effect<A, E, Scope.Scope>,
) => Effect.scoped(Effect.flatMap(startEmulator(), body));

/** A ConfigMap manifest for `kubectl create -f -` (typed generators such as `create configmap` send protobuf). */
const configMap = (name: string, data: Record<string, string> = {}) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });

const deployment = (name: string, image: string) =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "nginx", image }] } },
    },
  });

const ok = (result: { code: number; stdout: string; stderr: string }) => {
  assert.strictEqual(result.code, 0, `kubectl failed: ${result.stderr}`);
  return result.stdout;
};

describe.skipIf(!kubectlAvailability.ok)("kubectl against the emulator", () => {
  it.live("authenticates with the required token or a client certificate from the emulator's CA", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const running = yield* startEmulator({ token: "s3cret" });
        assert.include(ok(yield* kubectl(running, ["get", "namespaces", "-o", "name"])), "namespace/default");
        const work = mkdtempSync(join(tmpdir(), "kopf-emu-auth-"));
        const wrong = { ...running, kubeconfig: join(work, "wrong") };
        yield* running.server.writeKubeconfig(wrong.kubeconfig, { token: "nope" });
        const refused = yield* kubectl(wrong, ["get", "namespaces"]);
        assert.notStrictEqual(refused.code, 0);
        assert.include(refused.stderr, "You must be logged in to the server");
        const certificate = yield* running.server.issueClientCertificate({
          username: "alice",
          groups: ["devs"],
        });
        const byCert = { ...running, kubeconfig: join(work, "cert") };
        yield* running.server.writeKubeconfig(byCert.kubeconfig, { clientCertificate: certificate });
        assert.include(ok(yield* kubectl(byCert, ["get", "namespaces", "-o", "name"])), "namespace/default");
      }),
    ),
  );

  it.live("lists built-in and custom resources in api-resources", () =>
    run((running) =>
      Effect.gen(function* () {
        ok(yield* kubectl(running, ["apply", "-f", exampleCrd]));
        const out = ok(yield* kubectl(running, ["api-resources"]));
        assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
        assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
        assert.match(out, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
        assert.match(out, /^kopfexamples\s+kopfexes,kopfex,kexes,kex\s+kopf\.dev\/v1\s+true\s+KopfExample$/m);
        assert.match(
          out,
          /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m,
        );
      }),
    ),
  );

  it.live("applies client-side (create, then configure) and server-side", () =>
    run((running) =>
      Effect.gen(function* () {
        assert.include(
          ok(yield* kubectl(running, ["apply", "-f", exampleCrd])),
          "customresourcedefinition.apiextensions.k8s.io/kopfexamples.kopf.dev created",
        );
        ok(
          yield* kubectl(running, [
            "wait",
            "--for=condition=Established",
            "crd/kopfexamples.kopf.dev",
            "--timeout=10s",
          ]),
        );
        assert.include(
          ok(yield* kubectl(running, ["apply", "-f", exampleObject])),
          "kopfexample.kopf.dev/kopf-example-1 created",
        );
        assert.include(
          ok(yield* kubectl(running, ["apply", "-f", exampleObject])),
          "kopfexample.kopf.dev/kopf-example-1 unchanged",
        );
        const changed = `apiVersion: kopf.dev/v1\nkind: KopfExample\nmetadata:\n  name: kopf-example-1\nspec:\n  duration: 2m\n`;
        assert.include(
          ok(yield* kubectl(running, ["apply", "-f", "-"], changed)),
          "kopfexample.kopf.dev/kopf-example-1 configured",
        );
        const body = JSON.parse(
          ok(yield* kubectl(running, ["get", "kopfexample", "kopf-example-1", "-o", "json"])),
        );
        assert.strictEqual(body.spec.duration, "2m");
        assert.isUndefined(body.spec.field); // pruned by the three-way merge
        const ssa = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-cm\ndata:\n  a: "1"\n`;
        assert.include(
          ok(yield* kubectl(running, ["apply", "--server-side", "-f", "-"], ssa)),
          "configmap/ssa-cm serverside-applied",
        );
        const cm = JSON.parse(
          ok(yield* kubectl(running, ["get", "configmap", "ssa-cm", "-o", "json", "--show-managed-fields"])),
        );
        assert.deepStrictEqual(cm.data, { a: "1" });
        assert.strictEqual(cm.metadata.managedFields[0].manager, "kubectl");
        assert.strictEqual(cm.metadata.managedFields[0].operation, "Apply");
        const conflicting = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-cm\ndata:\n  a: "2"\n`;
        const conflict = yield* kubectl(
          running,
          ["apply", "--server-side", "--field-manager=other", "-f", "-"],
          conflicting,
        );
        assert.notStrictEqual(conflict.code, 0);
        assert.include(conflict.stderr, "conflict");
        ok(
          yield* kubectl(
            running,
            ["apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-"],
            conflicting,
          ),
        );
      }),
    ),
  );

  it.live("creates and reads objects as JSON", () =>
    run((running) =>
      Effect.gen(function* () {
        assert.include(
          ok(yield* kubectl(running, ["create", "-f", "-"], configMap("cm1", { a: "b" }))),
          "configmap/cm1 created",
        );
        const cm = JSON.parse(ok(yield* kubectl(running, ["get", "configmap", "cm1", "-o", "json"])));
        assert.strictEqual(cm.kind, "ConfigMap");
        assert.strictEqual(cm.metadata.namespace, "default");
        assert.deepStrictEqual(cm.data, { a: "b" });
        assert.match(cm.metadata.uid, /^[0-9a-f-]{36}$/);
        const again = yield* kubectl(running, ["create", "-f", "-"], configMap("cm1", { a: "b" }));
        assert.notStrictEqual(again.code, 0);
        assert.include(again.stderr, 'configmaps "cm1" already exists');
        const missing = yield* kubectl(running, ["get", "configmap", "nope"]);
        assert.include(missing.stderr, 'configmaps "nope" not found');
      }),
    ),
  );

  it.live("creates built-ins with kubectl's typed commands (protobuf bodies)", () =>
    run((running) =>
      Effect.gen(function* () {
        assert.include(
          ok(yield* kubectl(running, ["create", "namespace", "team-a"])),
          "namespace/team-a created",
        );
        assert.include(
          ok(
            yield* kubectl(running, [
              "create",
              "configmap",
              "cfg",
              "-n",
              "team-a",
              "--from-literal=a=b",
              "--from-literal=c=d",
            ]),
          ),
          "configmap/cfg created",
        );
        ok(
          yield* kubectl(running, [
            "create",
            "secret",
            "generic",
            "pw",
            "-n",
            "team-a",
            "--from-literal=password=hunter2",
          ]),
        );
        ok(
          yield* kubectl(running, [
            "create",
            "deployment",
            "web",
            "-n",
            "team-a",
            "--image=nginx:1",
            "--replicas=2",
            "--port=80",
          ]),
        );
        ok(yield* kubectl(running, ["create", "serviceaccount", "robot", "-n", "team-a"]));
        ok(
          yield* kubectl(running, ["create", "service", "clusterip", "web", "-n", "team-a", "--tcp=80:8080"]),
        );
        ok(
          yield* kubectl(running, [
            "run",
            "box",
            "-n",
            "team-a",
            "--image=busybox",
            "--labels=app=box",
            "--env=A=B",
            "--",
            "sleep",
            "10",
          ]),
        );
        assert.include(
          ok(yield* kubectl(running, ["scale", "deployment", "web", "-n", "team-a", "--replicas=4"])),
          "scaled",
        );
        const ns = JSON.parse(ok(yield* kubectl(running, ["get", "namespace", "team-a", "-o", "json"])));
        assert.strictEqual(ns.metadata.labels["kubernetes.io/metadata.name"], "team-a");
        const cfg = JSON.parse(
          ok(yield* kubectl(running, ["get", "configmap", "cfg", "-n", "team-a", "-o", "json"])),
        );
        assert.deepStrictEqual(cfg.data, { a: "b", c: "d" });
        const pw = JSON.parse(
          ok(yield* kubectl(running, ["get", "secret", "pw", "-n", "team-a", "-o", "json"])),
        );
        assert.strictEqual(Buffer.from(pw.data.password, "base64").toString(), "hunter2");
        const web = JSON.parse(
          ok(yield* kubectl(running, ["get", "deployment", "web", "-n", "team-a", "-o", "json"])),
        );
        assert.strictEqual(web.spec.replicas, 4);
        assert.strictEqual(web.spec.template.spec.containers[0].ports[0].containerPort, 80);
        const box = JSON.parse(
          ok(yield* kubectl(running, ["get", "pod", "box", "-n", "team-a", "-o", "json"])),
        );
        assert.deepStrictEqual(box.spec.containers[0].args, ["sleep", "10"]);
        assert.deepStrictEqual(box.spec.containers[0].env, [{ name: "A", value: "B" }]);
        const svc = JSON.parse(
          ok(yield* kubectl(running, ["get", "service", "web", "-n", "team-a", "-o", "json"])),
        );
        assert.strictEqual(svc.spec.ports[0].targetPort, 8080);
      }),
    ),
  );

  it.live("watches with get --watch", () =>
    run((running) =>
      Effect.gen(function* () {
        ok(yield* kubectl(running, ["create", "-f", "-"], configMap("before")));
        const watch = yield* kubectlBackground(running, [
          "get",
          "configmaps",
          "--watch",
          "--output-watch-events",
        ]);
        yield* eventually(Effect.sync(watch.output), (out) => /ADDED\s+before/.test(out));
        ok(yield* kubectl(running, ["create", "-f", "-"], configMap("during")));
        ok(yield* kubectl(running, ["label", "configmap", "during", "x=y"]));
        ok(yield* kubectl(running, ["delete", "configmap", "during"]));
        const out = yield* eventually(Effect.sync(watch.output), (text) => text.includes("DELETED"));
        // Watch events carry Table rows: the ConfigMap's own DATA column, as on a real server.
        assert.match(out, /^EVENT\s+NAME\s+DATA\s+AGE$/m);
        assert.match(out, /^ADDED\s+during\s+0\s/m);
        assert.match(out, /^MODIFIED\s+during\s/m);
        assert.match(out, /^DELETED\s+during\s/m);
      }),
    ),
  );

  it.live("prints each built-in kind's own columns (pods, services, events)", () =>
    run((running) =>
      Effect.gen(function* () {
        const pod = {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "p1" },
          spec: { containers: [{ name: "main", image: "nginx:1" }] },
        };
        const service = {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "s1" },
          spec: { selector: { app: "web" }, ports: [{ port: 80, protocol: "TCP" }] },
        };
        const event = {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name: "e1" },
          involvedObject: { kind: "Pod", name: "p1", namespace: "default" },
          reason: "Checked",
          message: "all fine",
          type: "Normal",
        };
        for (const body of [pod, service, event])
          ok(yield* kubectl(running, ["create", "-f", "-"], JSON.stringify(body)));
        const pods = ok(yield* kubectl(running, ["get", "pods"]));
        assert.match(pods, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
        assert.match(pods, /^p1\s+0\/1\s+\S*\s+0\s+\S+$/m);
        const wide = ok(yield* kubectl(running, ["get", "pods", "-o", "wide"]));
        assert.match(
          wide,
          /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m,
        );
        const services = ok(yield* kubectl(running, ["get", "services", "s1"]));
        assert.match(services, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/m);
        assert.match(services, /^s1\s+ClusterIP\s+\S+\s+<none>\s+80\/TCP\s+\S+$/m);
        const events = ok(yield* kubectl(running, ["get", "events"]));
        assert.match(events, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
        assert.match(events, /^\S+\s+Normal\s+Checked\s+pod\/p1\s+all fine$/m);
      }),
    ),
  );

  it.live("patches with merge, json and strategic patches; strategic is refused for custom resources", () =>
    run((running) =>
      Effect.gen(function* () {
        ok(yield* kubectl(running, ["create", "-f", "-"], deployment("web", "nginx:1")));
        ok(
          yield* kubectl(running, [
            "patch",
            "deployment",
            "web",
            "--type=merge",
            "-p",
            '{"spec":{"replicas":3}}',
          ]),
        );
        ok(
          yield* kubectl(running, [
            "patch",
            "deployment",
            "web",
            "--type=json",
            "-p",
            '[{"op":"add","path":"/metadata/labels/tier","value":"front"}]',
          ]),
        );
        const strategic =
          '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"},{"name":"sidecar","image":"busybox"}]}}}}';
        ok(yield* kubectl(running, ["patch", "deployment", "web", "--type=strategic", "-p", strategic]));
        const web = JSON.parse(ok(yield* kubectl(running, ["get", "deployment", "web", "-o", "json"])));
        assert.strictEqual(web.spec.replicas, 3);
        assert.strictEqual(web.metadata.labels.tier, "front");
        assert.deepStrictEqual(
          web.spec.template.spec.containers.map(
            (c: { name: string; image: string }) => `${c.name}=${c.image}`,
          ),
          ["nginx=nginx:2", "sidecar=busybox"],
        );
        const failedTest = yield* kubectl(running, [
          "patch",
          "deployment",
          "web",
          "--type=json",
          "-p",
          '[{"op":"test","path":"/spec/replicas","value":1}]',
        ]);
        assert.notStrictEqual(failedTest.code, 0);
        ok(yield* kubectl(running, ["apply", "-f", exampleCrd]));
        ok(yield* kubectl(running, ["wait", "--for=condition=Established", "crd/kopfexamples.kopf.dev"]));
        ok(yield* kubectl(running, ["apply", "-f", exampleObject]));
        const refused = yield* kubectl(running, [
          "patch",
          "kopfexample",
          "kopf-example-1",
          "--type=strategic",
          "-p",
          '{"spec":{"x":1}}',
        ]);
        assert.notStrictEqual(refused.code, 0);
        assert.include(refused.stderr, "strategic");
      }),
    ),
  );

  it.live("labels and annotates", () =>
    run((running) =>
      Effect.gen(function* () {
        ok(yield* kubectl(running, ["create", "-f", "-"], configMap("cm")));
        assert.include(
          ok(yield* kubectl(running, ["label", "configmap", "cm", "app=kopf"])),
          "configmap/cm labeled",
        );
        assert.include(
          ok(yield* kubectl(running, ["annotate", "configmap", "cm", "note=hello"])),
          "configmap/cm annotated",
        );
        assert.strictEqual(
          ok(yield* kubectl(running, ["get", "configmaps", "-l", "app=kopf", "-o", "name"])).trim(),
          "configmap/cm",
        );
        assert.strictEqual(
          ok(yield* kubectl(running, ["get", "configmaps", "-l", "app!=kopf", "-o", "name"])).trim(),
          "configmap/kube-root-ca.crt",
        );
        ok(yield* kubectl(running, ["label", "configmap", "cm", "app-"]));
        const cm = JSON.parse(ok(yield* kubectl(running, ["get", "configmap", "cm", "-o", "json"])));
        assert.isUndefined(cm.metadata.labels?.app);
        assert.strictEqual(cm.metadata.annotations.note, "hello");
        const overwrite = yield* kubectl(running, ["annotate", "configmap", "cm", "note=again"]);
        assert.notStrictEqual(overwrite.code, 0);
        assert.include(overwrite.stderr, "--overwrite is false");
      }),
    ),
  );

  it.live("delete --wait waits for finalizers to be removed", () =>
    run((running) =>
      Effect.gen(function* () {
        const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [kopf.dev/hold]\n`;
        ok(yield* kubectl(running, ["apply", "-f", "-"], cm));
        const deleting = yield* Effect.forkChild(
          kubectl(running, ["delete", "configmap", "held", "--wait=true", "--timeout=20s"]),
        );
        const marked = yield* eventually(
          kubectl(running, ["get", "configmap", "held", "-o", "json"]),
          (result) => result.code === 0 && JSON.parse(result.stdout).metadata.deletionTimestamp !== undefined,
        );
        assert.strictEqual(marked.code, 0);
        assert.isUndefined(deleting.pollUnsafe());
        ok(
          yield* kubectl(running, [
            "patch",
            "configmap",
            "held",
            "--type=json",
            "-p",
            '[{"op":"remove","path":"/metadata/finalizers"}]',
          ]),
        );
        const deleted = yield* Fiber.join(deleting);
        assert.include(ok(deleted), 'configmap "held" deleted');
        assert.notStrictEqual((yield* kubectl(running, ["get", "configmap", "held"])).code, 0);
      }),
    ),
  );

  it.live("waits for a status condition", () =>
    run((running) =>
      Effect.gen(function* () {
        ok(yield* kubectl(running, ["apply", "-f", exampleCrd]));
        assert.include(
          ok(
            yield* kubectl(running, [
              "wait",
              "--for=condition=Established",
              "crd/kopfexamples.kopf.dev",
              "--timeout=10s",
            ]),
          ),
          "condition met",
        );
        ok(yield* kubectl(running, ["apply", "-f", exampleObject]));
        const waiting = yield* Effect.forkChild(
          kubectl(running, ["wait", "--for=condition=Ready", "kopfexample/kopf-example-1", "--timeout=20s"]),
        );
        yield* Effect.sleep("300 millis");
        ok(
          yield* kubectl(running, [
            "patch",
            "kopfexample",
            "kopf-example-1",
            "--subresource=status",
            "--type=merge",
            "-p",
            '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}',
          ]),
        );
        assert.include(ok(yield* Fiber.join(waiting)), "condition met");
      }),
    ),
  );
});
