/** Discovery: version, legacy and group discovery documents (narrowed to what Kopf reads). */
import type { Select, Sequence } from "../Interaction.ts";
import { get, pick } from "./internal/steps.ts";

const KOPF_CORE = new Set([
  "configmaps",
  "namespaces",
  "events",
  "secrets",
  "pods",
  "serviceaccounts",
  "namespaces/status",
]);

const resources =
  (keep: (name: string) => boolean): Select =>
  (body) => {
    const list = body as {
      kind?: string;
      groupVersion?: string;
      resources?: ReadonlyArray<{ name: string }>;
    };
    if (!Array.isArray(list.resources)) return body;
    return {
      kind: list.kind,
      groupVersion: list.groupVersion,
      resources: list.resources.filter((r) => keep(r.name)).sort((a, b) => a.name.localeCompare(b.name)),
    };
  };

const groups =
  (keep: ReadonlySet<string>): Select =>
  (body) => {
    const list = body as { kind?: string; groups?: ReadonlyArray<{ name: string }> };
    if (!Array.isArray(list.groups)) return body;
    // Sorted by name: kube-apiserver orders groups by its internal priority, the emulator's order
    // varies with what it has seen; clients (Kopf included) look groups up by name.
    return {
      kind: list.kind,
      groups: list.groups.filter((g) => keep.has(g.name)).sort((a, b) => a.name.localeCompare(b.name)),
    };
  };

/** The discovery sequence. */
export const sequence = (_run: string): Sequence => ({
  name: "discovery",
  steps: [
    get("version", "/version", { select: pick("major", "minor", "gitVersion") }),
    get("api", "/api", { select: pick("kind", "versions") }),
    get("api-v1", "/api/v1", { select: resources((name) => KOPF_CORE.has(name)) }),
    get("apis", "/apis", {
      select: groups(
        new Set([
          "apiextensions.k8s.io",
          "coordination.k8s.io",
          "events.k8s.io",
          "admissionregistration.k8s.io",
        ]),
      ),
    }),
    get("apiextensions-v1", "/apis/apiextensions.k8s.io/v1", { select: resources(() => true) }),
    get("coordination-v1", "/apis/coordination.k8s.io/v1", { select: resources(() => true) }),
    get("admissionregistration-v1", "/apis/admissionregistration.k8s.io/v1", {
      select: resources(() => true),
    }),
    get("unknown-group", "/apis/nothing.example.com/v1"),
    get("unknown-version", "/api/v9"),
    get("unknown-path", "/nothing/here"),
    get("healthz", "/healthz"),
    get("readyz", "/readyz"),
  ],
});
