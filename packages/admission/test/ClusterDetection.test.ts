/** Guessing the local cluster kind for WebhookAutoServer (docs/behaviour/admission.md#servers-and-tunnels). */
import { assert, describe, it } from "@effect/vitest";
import { ClusterDetection } from "../src/index.ts";

describe("ClusterDetection.detect", () => {
  it.each([
    [{ subjectCN: ["k3s"] }, "k3s"],
    [{ subjectO: ["k3s"] }, "k3s"],
    [{ issuerCN: ["k3s-server-ca@1700000000"] }, "k3s"],
    [{ subjectCN: ["minikube"] }, "minikube"],
    [{ issuerCN: ["minikubeCA"] }, "minikube"],
    [{ sans: ["kubernetes", "docker-for-desktop"] }, "docker-desktop"],
    [{ gitVersion: "v1.30.2+k3s1" }, "k3s"],
    [{ subjectCN: ["kube-apiserver"], issuerCN: ["kubernetes"], gitVersion: "v1.30.2" }, undefined],
    [{}, undefined],
  ] as const)("%o ⇒ %s", (facts, expected) => {
    assert.strictEqual(ClusterDetection.detect(facts), expected);
  });

  it.each([
    ["k3s", "host.k3d.internal"],
    ["minikube", "host.minikube.internal"],
    ["docker-desktop", "host.docker.internal"],
  ] as const)("hostOf(%s) = %s", (kind, host) => {
    assert.strictEqual(ClusterDetection.hostOf(kind), host);
  });
});
