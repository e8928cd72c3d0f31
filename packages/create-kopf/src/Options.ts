/**
 * What `npm create kopf` is asked for: the project's directory (its package name is the
 * directory's name), the custom resource's API group and kind, and whether the operator serves
 * the whole cluster or one namespace. Validation is pure: bad values are an {@link OptionsError}
 * naming the option and what is accepted, before anything is written.
 */

/** Why the options cannot make a project. */
export class OptionsError {
  readonly _tag = "OptionsError";
  readonly reason: "MissingDirectory" | "BadName" | "BadGroup" | "BadKind" | "BadPlural" | "BadNamespace";
  readonly message: string;
  constructor(reason: OptionsError["reason"], message: string) {
    this.reason = reason;
    this.message = message;
  }
}

/** The options as given on the command line (all optional but the directory). */
export interface RawOptions {
  readonly directory?: string | undefined;
  readonly group?: string | undefined;
  readonly kind?: string | undefined;
  readonly plural?: string | undefined;
  readonly clusterwide?: boolean | undefined;
  readonly namespace?: string | undefined;
}

/** Everything the scaffold needs, validated. */
export interface Options {
  readonly directory: string;
  /** The npm package name: the directory's last segment. */
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  /** Serve every namespace (`kopf run -A`) rather than {@link namespace}. */
  readonly clusterwide: boolean;
  /** The namespace a namespaced operator serves (and where the example object lives). */
  readonly namespace: string;
}

/** The resource an operator gets when no group or kind is asked for. */
export const DEFAULTS = { group: "example.com", kind: "Widget", namespace: "default" } as const;

const NPM_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const GROUP = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})+$`);
const PLURAL = new RegExp(`^${DNS_LABEL}$`);
const KIND = /^[A-Z][A-Za-z0-9]*$/;

/**
 * The usual English plural of a kind, lower-cased (Kubernetes plurals are lower-case).
 *
 * @example
 * pluralOf("Widget") // "widgets"
 * pluralOf("Policy") // "policies"
 * pluralOf("Gateway") // "gateways"
 */
export const pluralOf = (kind: string): string => {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
};

/** The result of {@link validate}. */
export type Validated =
  | { readonly ok: true; readonly options: Options }
  | { readonly ok: false; readonly error: OptionsError };

const fail = (reason: OptionsError["reason"], message: string): Validated => ({
  ok: false,
  error: new OptionsError(reason, message),
});

/**
 * Checks the options and fills in the defaults.
 *
 * @example
 * validate({ directory: "my-op", group: "acme.io", kind: "Database" })
 * // { ok: true, options: { name: "my-op", plural: "databases", namespace: "default", ... } }
 */
export const validate = (raw: RawOptions): Validated => {
  const directory = raw.directory?.trim() ?? "";
  if (directory === "")
    return fail("MissingDirectory", "Name the project's directory: npm create kopf@latest my-operator");
  const name = directory.replace(/\/+$/, "").split("/").pop() ?? "";
  if (!NPM_NAME.test(name))
    return fail(
      "BadName",
      `The directory's name '${name}' is not a valid package name: use lower-case letters, digits, '-', '.', '_'.`,
    );
  const group = raw.group ?? DEFAULTS.group;
  if (!GROUP.test(group))
    return fail(
      "BadGroup",
      `--group '${group}' is not an API group: a lower-case DNS name with a dot, like acme.io.`,
    );
  const kind = raw.kind ?? DEFAULTS.kind;
  if (!KIND.test(kind))
    return fail("BadKind", `--kind '${kind}' is not a kind: CamelCase letters and digits, like Database.`);
  const plural = raw.plural ?? pluralOf(kind);
  if (!PLURAL.test(plural))
    return fail(
      "BadPlural",
      `--plural '${plural}' is not a resource name: lower-case letters, digits and '-'.`,
    );
  const namespace = raw.namespace ?? DEFAULTS.namespace;
  if (!PLURAL.test(namespace))
    return fail(
      "BadNamespace",
      `--namespace '${namespace}' is not a namespace name: lower-case letters, digits and '-'.`,
    );
  return {
    ok: true,
    options: {
      directory,
      name,
      group,
      version: "v1",
      kind,
      plural,
      singular: kind.toLowerCase(),
      clusterwide: raw.clusterwide ?? false,
      namespace,
    },
  };
};
