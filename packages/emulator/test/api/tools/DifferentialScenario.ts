/** The request script the differential check runs against both servers (see Differential.ts). */

export interface Step {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
  readonly statusOnly?: boolean;
  /** Milliseconds to wait after the step (for background controllers). */
  readonly sleep?: number;
}

const MERGE = "application/merge-patch+json";
const JSONP = "application/json-patch+json";
const SMP = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

export const SCENARIO = (ns: string): ReadonlyArray<Step> => {
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const crs = `/apis/kopf.dev/v1/namespaces/${ns}/kopfdiffs`;
  return [
    {
      name: "create namespace",
      method: "POST",
      path: "/api/v1/namespaces",
      body: { metadata: { name: ns } },
    },
    {
      name: "create configmap",
      method: "POST",
      path: cms,
      body: { metadata: { name: "a", labels: { app: "x" } }, data: { k: "v" } },
    },
    { name: "create duplicate", method: "POST", path: cms, body: { metadata: { name: "a" } } },
    { name: "create bad name", method: "POST", path: cms, body: { metadata: { name: "Bad_Name" } } },
    { name: "create no name", method: "POST", path: cms, body: { metadata: {} } },
    {
      name: "create with rv",
      method: "POST",
      path: cms,
      body: { metadata: { name: "rv", resourceVersion: "5" } },
    },
    {
      name: "create bad label",
      method: "POST",
      path: cms,
      body: { metadata: { name: "l", labels: { "a b": "c d" } } },
    },
    {
      name: "create wrong namespace",
      method: "POST",
      path: cms,
      body: { metadata: { name: "w", namespace: "default" } },
    },
    {
      name: "create missing namespace",
      method: "POST",
      path: "/api/v1/namespaces/nope-nope/configmaps",
      body: { metadata: { name: "x" } },
    },
    { name: "create malformed json", method: "POST", path: cms, body: "{nope" },
    {
      name: "create wrong kind",
      method: "POST",
      path: cms,
      body: { apiVersion: "v1", kind: "Secret", metadata: { name: "k" } },
    },
    {
      name: "create bad key",
      method: "POST",
      path: cms,
      body: { metadata: { name: "bk" }, data: { "a b": "1" } },
    },
    { name: "get", method: "GET", path: `${cms}/a` },
    { name: "get missing", method: "GET", path: `${cms}/zz` },
    { name: "get unknown resource", method: "GET", path: `/api/v1/namespaces/${ns}/nothings` },
    { name: "get unknown group", method: "GET", path: "/apis/nope.example.com/v1/things", statusOnly: true },
    { name: "list", method: "GET", path: `${cms}?labelSelector=app%3Dx` },
    { name: "list bad selector", method: "GET", path: `${cms}?labelSelector=a%20b` },
    { name: "list bad field", method: "GET", path: `${cms}?fieldSelector=spec.x%3D1` },
    {
      name: "list pods bad field",
      method: "GET",
      path: `/api/v1/namespaces/${ns}/pods?fieldSelector=spec.x%3D1`,
    },
    { name: "list limit", method: "GET", path: `${cms}?limit=1` },
    { name: "list bad continue", method: "GET", path: `${cms}?continue=garbage` },
    { name: "list rvmatch without rv", method: "GET", path: `${cms}?resourceVersionMatch=Exact` },
    {
      name: "put stale",
      method: "PUT",
      path: `${cms}/a`,
      body: { metadata: { name: "a", resourceVersion: "1" }, data: { k: "w" } },
    },
    { name: "put name mismatch", method: "PUT", path: `${cms}/a`, body: { metadata: { name: "b" } } },
    { name: "put missing", method: "PUT", path: `${cms}/zz`, body: { metadata: { name: "zz" } } },
    {
      name: "merge patch",
      method: "PATCH",
      path: `${cms}/a`,
      body: { data: { k2: "v2" } },
      contentType: MERGE,
    },
    {
      name: "json patch test fail",
      method: "PATCH",
      path: `${cms}/a`,
      body: [{ op: "test", path: "/data/k", value: "no" }],
      contentType: JSONP,
    },
    {
      name: "json patch missing path",
      method: "PATCH",
      path: `${cms}/a`,
      body: [{ op: "replace", path: "/data/none", value: "x" }],
      contentType: JSONP,
    },
    {
      name: "json patch malformed",
      method: "PATCH",
      path: `${cms}/a`,
      body: { op: "add" },
      contentType: JSONP,
    },
    {
      name: "smp",
      method: "PATCH",
      path: `${cms}/a`,
      body: { metadata: { finalizers: ["kopf.dev/x"] } },
      contentType: SMP,
    },
    {
      name: "patch unknown type",
      method: "PATCH",
      path: `${cms}/a`,
      body: {},
      contentType: "application/bogus",
    },
    {
      name: "apply no manager",
      method: "PATCH",
      path: `${cms}/s`,
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  a: '1'\n",
      contentType: APPLY,
    },
    {
      name: "apply create",
      method: "PATCH",
      path: `${cms}/s?fieldManager=alice`,
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  a: '1'\n",
      contentType: APPLY,
    },
    {
      name: "apply conflict",
      method: "PATCH",
      path: `${cms}/s?fieldManager=bob`,
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  a: '2'\n",
      contentType: APPLY,
    },
    { name: "delete with finalizer", method: "DELETE", path: `${cms}/a` },
    {
      name: "add finalizer while deleting",
      method: "PATCH",
      path: `${cms}/a`,
      body: { metadata: { finalizers: ["kopf.dev/x", "kopf.dev/y"] } },
      contentType: MERGE,
    },
    {
      name: "remove finalizer",
      method: "PATCH",
      path: `${cms}/a`,
      body: { metadata: { finalizers: null } },
      contentType: MERGE,
    },
    { name: "get deleted", method: "GET", path: `${cms}/a` },
    {
      name: "delete precondition",
      method: "DELETE",
      path: `${cms}/s`,
      body: { preconditions: { uid: "nope" } },
    },
    { name: "delete", method: "DELETE", path: `${cms}/s` },
    { name: "delete missing", method: "DELETE", path: `${cms}/s` },
    {
      name: "create crd",
      method: "POST",
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      sleep: 1500,
      body: {
        metadata: { name: "kopfdiffs.kopf.dev" },
        spec: {
          group: "kopf.dev",
          scope: "Namespaced",
          names: { plural: "kopfdiffs", kind: "KopfDiff" },
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
                      required: ["size"],
                      properties: {
                        size: { type: "integer", minimum: 1, maximum: 10 },
                        mode: { type: "string", enum: ["a", "b"], default: "a" },
                        items: { type: "array", maxItems: 2, items: { type: "string" } },
                      },
                    },
                    status: { type: "object", properties: { phase: { type: "string" } } },
                  },
                },
              },
            },
          ],
        },
      },
    },
    {
      name: "cr create",
      method: "POST",
      path: crs,
      body: {
        apiVersion: "kopf.dev/v1",
        kind: "KopfDiff",
        metadata: { name: "c" },
        spec: { size: 1, extra: 1 },
      },
    },
    {
      name: "cr create invalid type",
      method: "POST",
      path: crs,
      body: { apiVersion: "kopf.dev/v1", kind: "KopfDiff", metadata: { name: "d" }, spec: { size: "x" } },
    },
    {
      name: "cr create missing required",
      method: "POST",
      path: crs,
      body: { apiVersion: "kopf.dev/v1", kind: "KopfDiff", metadata: { name: "d" }, spec: {} },
    },
    {
      name: "cr create enum",
      method: "POST",
      path: crs,
      body: {
        apiVersion: "kopf.dev/v1",
        kind: "KopfDiff",
        metadata: { name: "d" },
        spec: { size: 1, mode: "z" },
      },
    },
    {
      name: "cr create max",
      method: "POST",
      path: crs,
      body: {
        apiVersion: "kopf.dev/v1",
        kind: "KopfDiff",
        metadata: { name: "d" },
        spec: { size: 11, items: ["a", "b", "c"] },
      },
    },
    {
      name: "cr create strict",
      method: "POST",
      path: `${crs}?fieldValidation=Strict`,
      body: {
        apiVersion: "kopf.dev/v1",
        kind: "KopfDiff",
        metadata: { name: "d" },
        spec: { size: 1, extra: 1 },
      },
    },
    {
      name: "cr create no kind",
      method: "POST",
      path: crs,
      body: { metadata: { name: "d" }, spec: { size: 1 } },
    },
    {
      name: "cr put no rv",
      method: "PUT",
      path: `${crs}/c`,
      body: { apiVersion: "kopf.dev/v1", kind: "KopfDiff", metadata: { name: "c" }, spec: { size: 2 } },
    },
    { name: "cr smp", method: "PATCH", path: `${crs}/c`, body: { spec: { size: 2 } }, contentType: SMP },
    {
      name: "cr status patch",
      method: "PATCH",
      path: `${crs}/c/status`,
      body: { spec: { size: 5 }, status: { phase: "x" } },
      contentType: MERGE,
    },
    {
      name: "cr main patch with status",
      method: "PATCH",
      path: `${crs}/c`,
      body: { spec: { size: 3 }, status: { phase: "y" } },
      contentType: MERGE,
    },
    {
      name: "cr apply create",
      method: "PATCH",
      path: `${crs}/ap?fieldManager=op`,
      body: "apiVersion: kopf.dev/v1\nkind: KopfDiff\nmetadata:\n  name: ap\n  labels:\n    x: y\nspec:\n  size: 2\n  items: [a, b]\n",
      contentType: APPLY,
    },
    {
      name: "cr apply status",
      method: "PATCH",
      path: `${crs}/ap/status?fieldManager=op`,
      body: "apiVersion: kopf.dev/v1\nkind: KopfDiff\nmetadata:\n  name: ap\nstatus:\n  phase: ok\n",
      contentType: APPLY,
    },
    {
      name: "cr apply conflict",
      method: "PATCH",
      path: `${crs}/ap?fieldManager=other`,
      body: "apiVersion: kopf.dev/v1\nkind: KopfDiff\nmetadata:\n  name: ap\nspec:\n  size: 3\n",
      contentType: APPLY,
    },
    {
      name: "cr apply drop label",
      method: "PATCH",
      path: `${crs}/ap?fieldManager=op`,
      body: "apiVersion: kopf.dev/v1\nkind: KopfDiff\nmetadata:\n  name: ap\nspec:\n  size: 2\n",
      contentType: APPLY,
    },
    {
      name: "cr json patch",
      method: "PATCH",
      path: `${crs}/ap`,
      body: [{ op: "add", path: "/metadata/finalizers", value: ["kopf.dev/f"] }],
      contentType: JSONP,
    },
    { name: "cr list", method: "GET", path: `${crs}?labelSelector=x` },
    { name: "cr bad field selector", method: "GET", path: `${crs}?fieldSelector=spec.size%3D1` },
    { name: "cr delete", method: "DELETE", path: `${crs}/c` },
    {
      name: "deployment missing selector",
      method: "POST",
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      body: { metadata: { name: "d" }, spec: {} },
    },
    {
      name: "deployment",
      method: "POST",
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      body: {
        metadata: { name: "d" },
        spec: {
          selector: { matchLabels: { app: "d" } },
          template: {
            metadata: { labels: { app: "d" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
      },
    },
    { name: "deployment scale", method: "GET", path: `/apis/apps/v1/namespaces/${ns}/deployments/d/scale` },
    {
      name: "pod no containers",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/pods`,
      body: { metadata: { name: "p" }, spec: {} },
    },
    {
      name: "service no ports",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/services`,
      body: { metadata: { name: "s" }, spec: {} },
    },
    {
      name: "secret stringData",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/secrets`,
      body: { metadata: { name: "s1" }, stringData: { a: "b" }, data: { c: "ZA==" } },
    },
    {
      name: "secret bad base64",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/secrets`,
      body: { metadata: { name: "s2" }, data: { c: "!!" } },
    },
    {
      name: "serviceaccount",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/serviceaccounts`,
      body: { metadata: { name: "sa" } },
    },
    {
      name: "lease",
      method: "POST",
      path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
      body: { metadata: { name: "l" }, spec: { holderIdentity: "me", leaseDurationSeconds: 15 } },
    },
    {
      name: "core event",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/events`,
      body: {
        metadata: { name: "e1" },
        involvedObject: { kind: "ConfigMap", name: "a", namespace: ns },
        reason: "R",
        message: "m",
        type: "Normal",
      },
    },
    { name: "events.k8s.io list", method: "GET", path: `/apis/events.k8s.io/v1/namespaces/${ns}/events` },
    {
      name: "service",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/services`,
      body: { metadata: { name: "svc" }, spec: { selector: { app: "x" }, ports: [{ port: 80 }] } },
    },
    {
      name: "pod",
      method: "POST",
      path: `/api/v1/namespaces/${ns}/pods`,
      body: { metadata: { name: "p1" }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
    {
      name: "deployment smp containers",
      method: "PATCH",
      path: `/apis/apps/v1/namespaces/${ns}/deployments/d`,
      body: { spec: { template: { spec: { containers: [{ name: "side", image: "busybox" }] } } } },
      contentType: SMP,
    },
    {
      name: "deployment apply",
      method: "PATCH",
      path: `/apis/apps/v1/namespaces/${ns}/deployments/d?fieldManager=ssa&force=true`,
      body: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: c\n        image: nginx:2\n",
      contentType: APPLY,
    },
    {
      name: "deployment status patch",
      method: "PATCH",
      path: `/apis/apps/v1/namespaces/${ns}/deployments/d/status`,
      body: { status: { replicas: 3 } },
      contentType: MERGE,
    },
    {
      name: "deployment scale patch",
      method: "PATCH",
      path: `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`,
      body: { spec: { replicas: 5 } },
      contentType: MERGE,
    },
    {
      name: "webhook config",
      method: "POST",
      path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      body: {
        metadata: { name: `vw-${ns}` },
        webhooks: [
          {
            name: "a.b.example.com",
            clientConfig: { url: "https://127.0.0.1:1/x" },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }],
          },
        ],
      },
    },
    {
      name: "delete webhook config",
      method: "DELETE",
      path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/vw-${ns}`,
    },
    {
      name: "list exact rv too old",
      method: "GET",
      path: `${cms}?resourceVersion=1&resourceVersionMatch=Exact`,
    },
    { name: "get namespace", method: "GET", path: `/api/v1/namespaces/${ns}` },
    {
      name: "delete default namespace",
      method: "DELETE",
      path: "/api/v1/namespaces/default",
      statusOnly: false,
    },
    { name: "delete namespace", method: "DELETE", path: `/api/v1/namespaces/${ns}`, sleep: 500 },
    {
      name: "create in terminating namespace",
      method: "POST",
      path: cms,
      body: { metadata: { name: "late" } },
    },
    {
      name: "delete crd",
      method: "DELETE",
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kopfdiffs.kopf.dev",
    },
  ];
};
