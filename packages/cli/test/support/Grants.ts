// Pure pieces of the least-privilege proof (LeastPrivilege.real.test.ts): the RBAC rules of a set
// of manifests split into single grants (one verb of one rule of one role), the role a grant is
// taken out of, and the audit log's events of one user counted (all requests, 403s).

/** An RBAC rule, as in a Role or ClusterRole. */
export interface Rule {
  readonly apiGroups?: ReadonlyArray<string>;
  readonly resources?: ReadonlyArray<string>;
  readonly resourceNames?: ReadonlyArray<string>;
  readonly nonResourceURLs?: ReadonlyArray<string>;
  readonly verbs: ReadonlyArray<string>;
}

/** A Role or ClusterRole. */
export interface Role {
  readonly apiVersion: string;
  readonly kind: "Role" | "ClusterRole";
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules: ReadonlyArray<Rule>;
}

/** One verb of one rule of one role: the unit the proof takes away. */
export interface Grant {
  readonly role: Role;
  readonly rule: number;
  readonly verb: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The Roles and ClusterRoles among manifests. */
export const rolesOf = (manifests: ReadonlyArray<unknown>): ReadonlyArray<Role> =>
  manifests.filter(
    (object): object is Role =>
      isRecord(object) &&
      (object.kind === "Role" || object.kind === "ClusterRole") &&
      Array.isArray(object.rules),
  );

/**
 * Every grant of the roles, rule by rule and verb by verb.
 *
 * @example
 * ```ts
 * grantsOf([{ kind: "Role", rules: [{ verbs: ["list", "watch"] }], ... }]).length // 2
 * ```
 */
export const grantsOf = (roles: ReadonlyArray<Role>): ReadonlyArray<Grant> =>
  roles.flatMap((role) =>
    role.rules.flatMap((rule, index) => rule.verbs.map((verb) => ({ role, rule: index, verb }))),
  );

/** The role without the grant: its rule loses the verb, and the rule goes when no verb is left. */
export const without = (grant: Grant): Role => ({
  ...grant.role,
  rules: grant.role.rules.flatMap((rule, index) => {
    if (index !== grant.rule) return [rule];
    const verbs = rule.verbs.filter((verb) => verb !== grant.verb);
    return verbs.length === 0 ? [] : [{ ...rule, verbs }];
  }),
});

/** A grant as a line of the report, e.g. `Role kopf: patch kopf.dev/kopfexamples`. */
export const describe = (grant: Grant): string => {
  const rule = grant.role.rules[grant.rule];
  const groups = rule?.apiGroups ?? [];
  const targets = (rule?.resources ?? rule?.nonResourceURLs ?? []).map((resource) =>
    groups.length === 1 && groups[0] !== "" ? `${groups[0]}/${resource}` : resource,
  );
  const names = rule?.resourceNames === undefined ? "" : ` named ${rule.resourceNames.join(",")}`;
  return `${grant.role.kind} ${grant.role.metadata.name}: ${grant.verb} ${targets.join(",")}${names}`;
};

/** One audited request, as much of it as the proof reads. */
export interface Audited {
  readonly verb: string;
  readonly uri: string;
  readonly code: number | undefined;
}

/** The requests of one user in an audit log's text (JSON lines; malformed lines are skipped). */
export const requestsOf = (text: string, username: string): ReadonlyArray<Audited> =>
  text.split("\n").flatMap((line) => {
    if (line.trim() === "") return [];
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return [];
    }
    if (!isRecord(event) || !isRecord(event.user) || event.user.username !== username) return [];
    const status = isRecord(event.responseStatus) ? event.responseStatus.code : undefined;
    return [
      {
        verb: typeof event.verb === "string" ? event.verb : "",
        uri: typeof event.requestURI === "string" ? event.requestURI : "",
        code: typeof status === "number" ? status : undefined,
      },
    ];
  });

/** The requests that were refused for want of a permission (403 Forbidden). */
export const forbidden = (requests: ReadonlyArray<Audited>): ReadonlyArray<Audited> =>
  requests.filter((request) => request.code === 403);
