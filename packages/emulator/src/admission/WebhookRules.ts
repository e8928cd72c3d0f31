/**
 * Which admission webhooks a request reaches, decided as kube-apiserver decides it: the webhook
 * configurations are read in name order and their webhooks in list order; a webhook is called when
 * one of its rules matches the operation, group, version, resource (with `*`, `*\/*`, `pods/*`,
 * `*\/status` forms) and scope, and both its namespaceSelector and objectSelector select the
 * request. Pure functions over plain configuration objects.
 */
import type { AdmissionRequest } from "../api/Admission.ts";
import * as Selectors from "../api/Selectors.ts";

/** One webhook of a Validating/MutatingWebhookConfiguration, as decoded here. */
export interface Webhook {
  readonly configuration: string;
  readonly name: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

type Json = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
const nameOf = (object: unknown): string =>
  isRecord(object) && isRecord(object.metadata) && typeof object.metadata.name === "string"
    ? object.metadata.name
    : "";
const labelsOf = (object: unknown): Readonly<Record<string, unknown>> =>
  isRecord(object) && isRecord(object.metadata) && isRecord(object.metadata.labels)
    ? object.metadata.labels
    : {};

/** The webhooks of the given configurations, in the order a real API server calls them. */
export const webhooksOf = (configurations: ReadonlyArray<unknown>): ReadonlyArray<Webhook> =>
  [...configurations]
    .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0))
    .flatMap((configuration) => {
      const webhooks =
        isRecord(configuration) && Array.isArray(configuration.webhooks) ? configuration.webhooks : [];
      return webhooks.filter(isRecord).map((raw) => ({
        configuration: nameOf(configuration),
        name: typeof raw.name === "string" ? raw.name : "",
        raw,
      }));
    });

/**
 * Whether a rule's resource entry covers `resource` with `subresource` ("" for the main
 * resource), as kube-apiserver's rule matcher decides: the entry is `resource[/subresource]`,
 * each part `*` or equal, so `kopfexamples/*` covers the main resource and every subresource,
 * `*` only main resources, `*` + `/status` only status subresources.
 */
export const resourceMatches = (entry: string, resource: string, subresource: string): boolean => {
  const slash = entry.indexOf("/");
  const entryResource = slash < 0 ? entry : entry.slice(0, slash);
  const entrySub = slash < 0 ? "" : entry.slice(slash + 1);
  return (
    (entryResource === "*" || entryResource === resource) && (entrySub === "*" || entrySub === subresource)
  );
};

const listed = (entries: ReadonlyArray<string>, value: string): boolean =>
  entries.includes("*") || entries.includes(value);

/** Whether one RuleWithOperations matches the request. */
export const ruleMatches = (rule: Json, request: AdmissionRequest): boolean => {
  if (!listed(strings(rule.operations), request.operation)) return false;
  if (!listed(strings(rule.apiGroups), request.resource.group)) return false;
  if (!listed(strings(rule.apiVersions), request.resource.version)) return false;
  if (
    !strings(rule.resources).some((entry) =>
      resourceMatches(entry, request.resource.resource, request.subResource),
    )
  )
    return false;
  const scope = typeof rule.scope === "string" ? rule.scope : "*";
  if (scope === "Cluster") return !request.namespaced;
  if (scope === "Namespaced") return request.namespaced;
  return true;
};

/** A metav1.LabelSelector in the core's requirement form; `undefined` when it is malformed. */
export const labelSelector = (selector: unknown): Selectors.LabelSelector | undefined => {
  if (selector === undefined || selector === null) return [];
  if (!isRecord(selector)) return undefined;
  const requirements: Array<Selectors.LabelRequirement> = [];
  if (selector.matchLabels !== undefined) {
    if (!isRecord(selector.matchLabels)) return undefined;
    for (const [key, value] of Object.entries(selector.matchLabels)) {
      if (typeof value !== "string") return undefined;
      requirements.push({ op: "=", key, value });
    }
  }
  const expressions = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) return undefined;
  for (const expression of expressions) {
    if (!isRecord(expression) || typeof expression.key !== "string") return undefined;
    const values = strings(expression.values);
    switch (expression.operator) {
      case "In":
        requirements.push({ op: "in", key: expression.key, values });
        break;
      case "NotIn":
        requirements.push({ op: "notin", key: expression.key, values });
        break;
      case "Exists":
        requirements.push({ op: "exists", key: expression.key });
        break;
      case "DoesNotExist":
        requirements.push({ op: "!exists", key: expression.key });
        break;
      default:
        return undefined;
    }
  }
  return requirements;
};

/** How a webhook relates to a request. */
export type Selection = "Call" | "Skip" | { readonly _tag: "InvalidSelector"; readonly message: string };

/**
 * Decides whether `webhook` is called for `request`. Namespaced requests are matched against their
 * namespace's labels, a Namespace against its own labels, other cluster-scoped objects always pass
 * the namespaceSelector. The objectSelector passes when the object or the old object matches.
 */
export const select = (
  webhook: Webhook,
  request: AdmissionRequest,
  namespaceLabels: (namespace: string) => Readonly<Record<string, string>> | undefined,
): Selection => {
  const rules = Array.isArray(webhook.raw.rules) ? webhook.raw.rules.filter(isRecord) : [];
  if (!rules.some((rule) => ruleMatches(rule, request))) return "Skip";
  const namespaceSelector = labelSelector(webhook.raw.namespaceSelector);
  if (namespaceSelector === undefined) {
    return { _tag: "InvalidSelector", message: `webhook "${webhook.name}" has an invalid namespaceSelector` };
  }
  if (namespaceSelector.length > 0) {
    const isNamespace = request.resource.group === "" && request.resource.resource === "namespaces";
    if (isNamespace) {
      const own = labelsOf(request.object ?? request.oldObject);
      if (!Selectors.matchesLabels(namespaceSelector, own)) return "Skip";
    } else if (request.namespaced) {
      const labels = namespaceLabels(request.namespace) ?? {};
      if (!Selectors.matchesLabels(namespaceSelector, labels)) return "Skip";
    }
  }
  const objectSelector = labelSelector(webhook.raw.objectSelector);
  if (objectSelector === undefined) {
    return { _tag: "InvalidSelector", message: `webhook "${webhook.name}" has an invalid objectSelector` };
  }
  if (objectSelector.length > 0) {
    const candidates = [request.object, request.oldObject].filter(
      (object) => object !== undefined && object !== null,
    );
    if (!candidates.some((object) => Selectors.matchesLabels(objectSelector, labelsOf(object))))
      return "Skip";
  }
  return "Call";
};
