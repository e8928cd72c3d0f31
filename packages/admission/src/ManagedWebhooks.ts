/**
 * The contents of managed Validating/MutatingWebhookConfigurations (Kopf's `build_webhooks`,
 * docs/behaviour/admission.md#managed-configurations): one webhook per handler of the kind, named after the handler id and
 * the configuration's name, with rules from the served resources and the handler's operations
 * and subresource, an object selector from its label filters, and the server's client config
 * pointing at the handler's own URL. Pure.
 */
import { ABSENT, Matching, PRESENT, type WebhookHandler, type WebhookType } from "@kopf/registry";
import type { Resource } from "@kopf/structs";
import type { ClientConfig } from "./ClientConfig.ts";

/** One rule of a webhook. */
export interface Rule {
  readonly apiGroups: ReadonlyArray<string>;
  readonly apiVersions: ReadonlyArray<string>;
  readonly resources: ReadonlyArray<string>;
  readonly operations: ReadonlyArray<string>;
  readonly scope: "*";
}

/** A label selector expression. */
export interface LabelExpression {
  readonly key: string;
  readonly operator: "Exists" | "DoesNotExist" | "In";
  readonly values?: ReadonlyArray<string>;
}

/** One entry of a configuration's `webhooks` list. */
export interface Webhook {
  readonly name: string;
  readonly sideEffects: "None" | "NoneOnDryRun";
  readonly failurePolicy: "Ignore" | "Fail";
  readonly matchPolicy: "Equivalent";
  readonly rules: ReadonlyArray<Rule>;
  readonly objectSelector: { readonly matchExpressions: ReadonlyArray<LabelExpression> } | null;
  readonly clientConfig: ClientConfig;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: ReadonlyArray<string>;
}

const encoder = new TextEncoder();

const hex = (text: string): string =>
  [...encoder.encode(text)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/**
 * The webhook's name: the handler id with `/` → `.`, `_` → `-`, every other character outside
 * word characters, digits, `.` and `-` replaced by its UTF-8 hex, then `.` and the configuration's
 * name (if not empty).
 *
 * @example
 * ManagedWebhooks.webhookName("id!", "sfx") // "id21.sfx"
 * ManagedWebhooks.webhookName("id/sub", "sfx") // "id.sub.sfx"
 */
export const webhookName = (id: string, managed: string): string => {
  const name = id
    .replaceAll("/", ".")
    .replaceAll("_", "-")
    .replace(/[^\p{L}\p{N}_.-]/gu, hex);
  return managed === "" ? name : `${name}.${managed}`;
};

const UNRESERVED = /[A-Za-z0-9_.~/-]/;

/**
 * URL-quotes a handler id as Python's `urllib.parse.quote` does (`/` kept; UTF-8 bytes as `%XX`).
 *
 * @example
 * ManagedWebhooks.quote("id!") // "id%21"
 */
export const quote = (id: string): string =>
  [...id]
    .map((char) =>
      UNRESERVED.test(char)
        ? char
        : [...encoder.encode(char)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
    )
    .join("");

/**
 * The client config of one handler: the handler's quoted id appended to the URL and/or the
 * service path.
 *
 * @example
 * ManagedWebhooks.handlerClientConfig({ url: "https://hostname/p1/p2" }, "id!") // { url: "https://hostname/p1/p2/id%21" }
 */
export const handlerClientConfig = (config: ClientConfig, id: string): ClientConfig => {
  const suffix = quote(id);
  return {
    ...config,
    ...(config.url === undefined ? {} : { url: `${config.url.replace(/\/+$/, "")}/${suffix}` }),
    ...(config.service === undefined
      ? {}
      : {
          service: {
            ...config.service,
            path: `${config.service.path ?? ""}/${suffix}`,
          },
        }),
  };
};

const rulesOf = (handler: WebhookHandler, resources: ReadonlyArray<Resource.Resource>): ReadonlyArray<Rule> =>
  resources
    // Sub-handlers have no selector: they serve no resource here.
    .filter((resource) => handler.selector !== undefined && Matching.matchesResource(handler, resource))
    .map((resource) => ({
      apiGroups: [resource.group],
      apiVersions: [resource.version],
      resources: [
        handler.subresource === undefined ? resource.plural : `${resource.plural}/${handler.subresource}`,
      ],
      operations: handler.operations === undefined ? ["*"] : [...handler.operations],
      scope: "*",
    }));

const selectorOf = (handler: WebhookHandler): Webhook["objectSelector"] => {
  const expressions: Array<LabelExpression> = [];
  for (const [key, value] of Object.entries(handler.labels ?? {})) {
    if (value === PRESENT) expressions.push({ key, operator: "Exists" });
    else if (value === ABSENT) expressions.push({ key, operator: "DoesNotExist" });
    else if (typeof value !== "function") expressions.push({ key, operator: "In", values: [String(value)] });
  }
  return expressions.length > 0 ? { matchExpressions: expressions } : null;
};

/** What to build the webhooks of one configuration from. */
export interface BuildOptions {
  /** The registry's webhook handlers (all kinds; only those of `reason` are used). */
  readonly handlers: ReadonlyArray<WebhookHandler>;
  readonly reason: WebhookType;
  /** The resources served by webhooks (the insights' `webhooks`). */
  readonly resources: ReadonlyArray<Resource.Resource>;
  /** The configuration's name (`settings.admission.managed`). */
  readonly name: string;
  readonly clientConfig: ClientConfig;
  /** Only the handlers marked `persistent` (the configuration left behind on exit). */
  readonly persistentOnly?: boolean | undefined;
}

/**
 * The `webhooks` list of a managed configuration.
 *
 * @example
 * ```ts
 * ManagedWebhooks.build({ handlers: registry.webhooks, reason: "validating", resources, name: "auto.kopf.dev", clientConfig })
 * // [{ name: "check.auto.kopf.dev", rules: [...], clientConfig: { url: "https://…/check" }, … }]
 * ```
 */
export const build = (options: BuildOptions): ReadonlyArray<Webhook> =>
  options.handlers
    .filter((h) => h.reason === options.reason)
    .filter((h) => options.persistentOnly !== true || h.persistent === true)
    .map((handler) => ({
      name: webhookName(handler.id, options.name),
      sideEffects: handler.sideEffects === true ? "NoneOnDryRun" : "None",
      failurePolicy: handler.ignoreFailures === true ? "Ignore" : "Fail",
      matchPolicy: "Equivalent",
      rules: rulesOf(handler, options.resources),
      objectSelector: selectorOf(handler),
      clientConfig: handlerClientConfig(options.clientConfig, handler.id),
      timeoutSeconds: 30,
      admissionReviewVersions: ["v1", "v1beta1"],
    }));
