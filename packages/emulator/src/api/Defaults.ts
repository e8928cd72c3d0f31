/**
 * Defaulting of built-in types, the part of each type's registry strategy and scheme defaults an
 * operator can observe: namespace finalizers and phase, secret type, deployment and pod spec
 * defaults, CRD names and conversion, webhook configuration defaults.
 */
import { asObject, isObject, type JsonObject, metaOf } from "./internal/Json.ts";
import { omitEmpty } from "./internal/omitEmpty.ts";
import type { ResourceType } from "./ResourceType.ts";

const setDefault = (obj: JsonObject, key: string, value: unknown): void => {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
};

const webhookDefaults =
  (mutating: boolean) =>
  (hook: unknown): unknown => {
    if (!isObject(hook)) return hook;
    const h = { ...hook };
    setDefault(h, "failurePolicy", "Fail");
    setDefault(h, "matchPolicy", "Equivalent");
    setDefault(h, "namespaceSelector", {});
    setDefault(h, "objectSelector", {});
    setDefault(h, "timeoutSeconds", 10);
    if (mutating) setDefault(h, "reinvocationPolicy", "Never");
    if (Array.isArray(h.rules)) h.rules = h.rules.map((r) => (isObject(r) ? { scope: "*", ...r } : r));
    if (isObject(h.clientConfig) && isObject(h.clientConfig.service))
      h.clientConfig = { ...h.clientConfig, service: { port: 443, ...h.clientConfig.service } };
    return h;
  };

const crdDefaults = (obj: JsonObject): JsonObject => {
  const spec = { ...asObject(obj.spec) };
  const names = { ...asObject(spec.names) };
  if (typeof names.kind === "string" && names.kind !== "") {
    setDefault(names, "singular", names.kind.toLowerCase());
    setDefault(names, "listKind", `${names.kind}List`);
  }
  spec.names = names;
  setDefault(spec, "conversion", { strategy: "None" });
  return { ...obj, spec };
};

const deploymentDefaults = (obj: JsonObject): JsonObject => {
  const spec = { ...asObject(obj.spec) };
  setDefault(spec, "replicas", 1);
  const strategy = { ...asObject(spec.strategy) };
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate")
    strategy.rollingUpdate = { maxUnavailable: "25%", maxSurge: "25%", ...asObject(strategy.rollingUpdate) };
  spec.strategy = strategy;
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  const template = asObject(spec.template);
  if (isObject(spec.template))
    spec.template = { ...template, spec: podSpecDefaults(asObject(template.spec)) };
  return { ...obj, spec };
};

/** A random cluster IP from 10.96.0.0/12, as the apiserver's allocator picks one. */
const clusterIp = (random: () => number): string =>
  `10.${96 + Math.floor(random() * 16)}.${Math.floor(random() * 256)}.${2 + Math.floor(random() * 253)}`;

const serviceSchemeDefaults = (obj: JsonObject): JsonObject => {
  const spec = { ...asObject(obj.spec) };
  setDefault(spec, "type", "ClusterIP");
  setDefault(spec, "sessionAffinity", "None");
  if (spec.type !== "ExternalName") setDefault(spec, "internalTrafficPolicy", "Cluster");
  if (Array.isArray(spec.ports))
    spec.ports = spec.ports.map((p) =>
      isObject(p)
        ? { protocol: "TCP", ...p, ...(p.targetPort === undefined ? { targetPort: p.port } : {}) }
        : p,
    );
  return { ...obj, spec };
};

/** The registry's IP allocation of a new service. */
const serviceAllocation = (obj: JsonObject, random: () => number): JsonObject => {
  const spec = { ...asObject(obj.spec) };
  if (spec.type !== "ExternalName") {
    setDefault(spec, "clusterIP", clusterIp(random));
    setDefault(spec, "clusterIPs", [spec.clusterIP]);
    setDefault(spec, "ipFamilies", ["IPv4"]);
    setDefault(spec, "ipFamilyPolicy", "SingleStack");
  }
  return { ...obj, spec, status: { loadBalancer: {} } };
};

/** SetDefaults_ContainerPort: a port without a protocol is TCP. */
const portDefaults = (port: unknown): unknown =>
  isObject(port) && (port.protocol === undefined || port.protocol === "")
    ? { ...port, protocol: "TCP" }
    : port;

const containerDefaults = (c: unknown): unknown =>
  isObject(c)
    ? {
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        imagePullPolicy:
          typeof c.image === "string" && (c.image.endsWith(":latest") || !c.image.includes(":"))
            ? "Always"
            : "IfNotPresent",
        resources: {},
        ...c,
        ...(Array.isArray(c.ports) ? { ports: c.ports.map(portDefaults) } : {}),
      }
    : c;

const podSpecDefaults = (spec: JsonObject): JsonObject => {
  const s = { ...spec };
  setDefault(s, "restartPolicy", "Always");
  setDefault(s, "terminationGracePeriodSeconds", 30);
  setDefault(s, "dnsPolicy", "ClusterFirst");
  setDefault(s, "securityContext", {});
  setDefault(s, "schedulerName", "default-scheduler");
  for (const key of ["initContainers", "containers"]) {
    const containers = s[key];
    if (Array.isArray(containers)) s[key] = containers.map(containerDefaults);
  }
  return s;
};

/** stringData is write-only: the v1 conversion merges it into data, base64-encoded. */
const secretDefaults = (obj: JsonObject): JsonObject => {
  const out: JsonObject = { ...obj };
  if (out.type === undefined || out.type === "") out.type = "Opaque";
  if (isObject(out.stringData)) {
    const data = { ...asObject(out.data) };
    for (const [k, v] of Object.entries(out.stringData))
      data[k] = Buffer.from(String(v), "utf8").toString("base64");
    out.data = data;
  }
  delete out.stringData;
  return out;
};

const namespaceLabel = (obj: JsonObject): JsonObject => {
  const meta = metaOf(obj);
  return {
    ...obj,
    metadata: { ...meta, labels: { ...asObject(meta.labels), "kubernetes.io/metadata.name": meta.name } },
  };
};

/**
 * Scheme defaults: applied to every decoded object (create and update); custom resources only
 * lose their empty metadata maps and lists (their ObjectMeta is typed too).
 */
export const scheme = (type: ResourceType, decoded: JsonObject): JsonObject => {
  const obj = omitEmpty(type, decoded);
  if (type.custom) return obj;
  switch (`${type.group}/${type.plural}`) {
    case "/namespaces":
      return namespaceLabel(obj);
    case "/secrets":
      return secretDefaults(obj);
    case "/pods":
      return { ...obj, spec: { enableServiceLinks: true, ...podSpecDefaults(asObject(obj.spec)) } };
    case "/services":
      return serviceSchemeDefaults(obj);
    case "apps/deployments":
      return deploymentDefaults(obj);
    case "apiextensions.k8s.io/customresourcedefinitions":
      return crdDefaults(obj);
    case "admissionregistration.k8s.io/validatingwebhookconfigurations":
    case "admissionregistration.k8s.io/mutatingwebhookconfigurations":
      return Array.isArray(obj.webhooks)
        ? { ...obj, webhooks: obj.webhooks.map(webhookDefaults(type.plural.startsWith("mutating"))) }
        : obj;
    default:
      return obj;
  }
};

/** The namespace strategy on create: the user's finalizers with `kubernetes` appended when missing. */
const withKubernetesFinalizer = (finalizers: unknown): Array<unknown> => {
  const given = Array.isArray(finalizers) ? finalizers : [];
  return given.includes("kubernetes") ? given : [...given, "kubernetes"];
};

/** What a type's registry strategy sets on create (not part of any manager's fields). */
export const onCreate = (type: ResourceType, obj: JsonObject, random: () => number): JsonObject => {
  if (type.custom) return obj;
  switch (`${type.group}/${type.plural}`) {
    case "/namespaces":
      return {
        ...obj,
        spec: { ...asObject(obj.spec), finalizers: withKubernetesFinalizer(asObject(obj.spec).finalizers) },
        status: { phase: "Active" },
      };
    case "/pods": {
      // What the ServiceAccount, Priority and DefaultTolerationSeconds admission plugins add.
      const spec = { ...asObject(obj.spec) };
      setDefault(spec, "serviceAccountName", "default");
      setDefault(spec, "serviceAccount", spec.serviceAccountName);
      setDefault(spec, "priority", 0);
      setDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
      setDefault(spec, "tolerations", [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ]);
      return { ...obj, spec, status: { phase: "Pending", qosClass: "BestEffort" } };
    }
    case "/services":
      return serviceAllocation(obj, random);
    case "apps/deployments":
      return { ...obj, status: {} };
    case "/events":
      return eventZeroFields(obj);
    case "coordination.k8s.io/leases":
      return withoutCoordinatedFields(obj, undefined);
    case "apiextensions.k8s.io/customresourcedefinitions": {
      const versions = Array.isArray(asObject(obj.spec).versions)
        ? (asObject(obj.spec).versions as Array<unknown>)
        : [];
      const storage = versions.filter(isObject).find((v) => v.storage === true);
      return {
        ...obj,
        status: {
          conditions: null,
          acceptedNames: { plural: "", kind: "" },
          storedVersions: storage === undefined ? [] : [storage.name],
        },
      };
    }
    default:
      return obj;
  }
};

/** Core events serialize their non-omitempty zero fields (not owned by anyone). */
const eventZeroFields = (obj: JsonObject): JsonObject => ({
  source: {},
  firstTimestamp: null,
  lastTimestamp: null,
  eventTime: null,
  reportingComponent: "",
  reportingInstance: "",
  ...obj,
});

/** What a type's registry strategy sets on update. */
export const onUpdate = (type: ResourceType, obj: JsonObject, old: JsonObject | undefined): JsonObject =>
  type.custom
    ? obj
    : type.group === "" && type.plural === "events"
      ? eventZeroFields(obj)
      : type.group === "coordination.k8s.io" && type.plural === "leases"
        ? withoutCoordinatedFields(obj, old)
        : obj;

/**
 * A Lease without `spec.strategy` and `spec.preferredHolder`, which kube-apiserver drops while its
 * `CoordinatedLeaderElection` gate is off (the default up to v1.36), unless the stored Lease
 * already has them (k8s.io/kubernetes pkg/registry/coordination/lease/strategy.go).
 */
const withoutCoordinatedFields = (obj: JsonObject, old: JsonObject | undefined): JsonObject => {
  if (!isObject(obj.spec)) return obj;
  const spec: JsonObject = { ...obj.spec };
  const before = isObject(old?.spec) ? old.spec : {};
  for (const f of ["strategy", "preferredHolder"])
    if (before[f] === undefined || before[f] === null) delete spec[f];
  return { ...obj, spec };
};
