/**
 * Guessing the kind of a local development cluster (Kopf's `WebhookAutoServer` detection, spec
 * docs/behaviour/admission.md#servers-and-tunnels), so a webhook server can pick the host name the cluster's nodes use for the developer's
 * machine: k3s/k3d from the API server certificate's subject (CN or O `k3s`) or issuer (CN
 * starting `k3s-`), minikube from the subject CN `minikube` or issuer CN `minikubeCA`, Docker
 * Desktop from the SAN `docker-for-desktop`; failing those, a `/version` gitVersion containing
 * `+k3s`. Pure.
 */

/** The detected kind of cluster. */
export type ClusterKind = "k3s" | "minikube" | "docker-desktop";

/** What is known about the API server. */
export interface ServerFacts {
  readonly subjectCN?: ReadonlyArray<string> | undefined;
  readonly subjectO?: ReadonlyArray<string> | undefined;
  readonly issuerCN?: ReadonlyArray<string> | undefined;
  /** The SAN DNS names. */
  readonly sans?: ReadonlyArray<string> | undefined;
  /** `gitVersion` of `/version`. */
  readonly gitVersion?: string | undefined;
}

/**
 * The kind of cluster, or `undefined` when it is none of the known local ones.
 *
 * @example
 * ClusterDetection.detect({ issuerCN: ["k3s-server-ca@1600000000"] }) // "k3s"
 * ClusterDetection.detect({ gitVersion: "v1.30.2+k3s1" }) // "k3s"
 */
export const detect = (facts: ServerFacts): ClusterKind | undefined => {
  const subjectCN = facts.subjectCN ?? [];
  const issuerCN = facts.issuerCN ?? [];
  if (
    subjectCN.includes("k3s") ||
    (facts.subjectO ?? []).includes("k3s") ||
    issuerCN.some((cn) => cn.startsWith("k3s-"))
  ) {
    return "k3s";
  }
  if (subjectCN.includes("minikube") || issuerCN.includes("minikubeCA")) return "minikube";
  if ((facts.sans ?? []).includes("docker-for-desktop")) return "docker-desktop";
  if (facts.gitVersion?.includes("+k3s") === true) return "k3s";
  return undefined;
};

/**
 * The host name a cluster's nodes reach the developer's machine at.
 *
 * @example
 * ClusterDetection.hostOf("minikube") // "host.minikube.internal"
 */
export const hostOf = (kind: ClusterKind): string => {
  switch (kind) {
    case "k3s":
      return "host.k3d.internal";
    case "minikube":
      return "host.minikube.internal";
    case "docker-desktop":
      return "host.docker.internal";
  }
};
