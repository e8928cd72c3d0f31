/**
 * Kubeconfig documents as values: parsing one file's YAML into clusters, users and contexts,
 * merging several files as kubectl does, and selecting a context. Only the fields the logins use
 * are kept.
 *
 * Every error message names the file and the place (a YAML line and column, or a field path like
 * `users[0].user.token`) but never a value: kubeconfigs hold tokens, passwords and keys, and these
 * messages end up in logs.
 */
import { dirname, isAbsolute, join } from "node:path";
import * as Result from "effect/Result";
import { LineCounter, parseDocument } from "yaml";

/** A cluster entry (kubeconfig's `clusters[].cluster`). */
export interface Cluster {
  readonly name: string;
  readonly server: string;
  readonly caFile?: string | undefined;
  readonly caData?: string | undefined;
  readonly insecure: boolean;
  readonly tlsServerName?: string | undefined;
  readonly proxyUrl?: string | undefined;
}

/** An exec credential plugin (kubeconfig's `users[].user.exec`). */
export interface Exec {
  readonly command: string;
  readonly args: ReadonlyArray<string>;
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  readonly apiVersion?: string | undefined;
  readonly interactiveMode?: string | undefined;
}

/** A user entry (kubeconfig's `users[].user`). */
export interface User {
  readonly name: string;
  readonly token?: string | undefined;
  readonly tokenFile?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly certFile?: string | undefined;
  readonly certData?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly keyData?: string | undefined;
  readonly exec?: Exec | undefined;
  readonly authProvider?:
    | { readonly name: string; readonly config: Readonly<Record<string, unknown>> }
    | undefined;
}

/** A context entry (kubeconfig's `contexts[].context`). */
export interface Context {
  readonly name: string;
  readonly cluster: string;
  readonly user?: string | undefined;
  readonly namespace?: string | undefined;
}

/** One file, or several merged. */
export interface KubeConfigFile {
  readonly clusters: ReadonlyArray<Cluster>;
  readonly users: ReadonlyArray<User>;
  readonly contexts: ReadonlyArray<Context>;
  readonly currentContext?: string | undefined;
}

/** A problem with a file, as a message safe to log (no values). */
export type Problem = string;

type Fields = Readonly<Record<string, unknown>>;

const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads typed fields of one mapping, collecting the first problem. */
class Reader {
  problem: Problem | undefined;
  readonly at: string;
  constructor(at: string) {
    this.at = at;
  }
  fail(message: Problem): undefined {
    this.problem ??= message;
    return undefined;
  }
  string(fields: Fields, key: string): string | undefined {
    const value = fields[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return this.fail(`${this.at}.${key} must be a string`);
  }
  boolean(fields: Fields, key: string): boolean {
    const value = fields[key];
    if (value === undefined || value === null) return false;
    if (typeof value === "boolean") return value;
    if (value === "true" || value === "false") return value === "true";
    this.fail(`${this.at}.${key} must be true or false`);
    return false;
  }
  mapping(fields: Fields, key: string): Fields | undefined {
    const value = fields[key];
    if (value === undefined || value === null) return undefined;
    return isFields(value) ? value : this.fail(`${this.at}.${key} must be a mapping`);
  }
}

/** A path relative to the kubeconfig's directory, made absolute (as kubectl resolves them). */
const absolute = (file: string, path: string | undefined): string | undefined =>
  path === undefined || path === "" || isAbsolute(path) ? path || undefined : join(dirname(file), path);

const entries = <T>(
  document: Fields,
  list: string,
  inner: string,
  read: (reader: Reader, name: string, fields: Fields) => T | undefined,
): Result.Result<ReadonlyArray<T>, Problem> => {
  const value = document[list];
  if (value === undefined || value === null) return Result.succeed([]);
  if (!Array.isArray(value)) return Result.fail(`${list} must be a list`);
  const out: Array<T> = [];
  for (const [index, item] of value.entries()) {
    const at = `${list}[${index}]`;
    if (!isFields(item)) return Result.fail(`${at} must be a mapping`);
    if (typeof item.name !== "string" || item.name === "") return Result.fail(`${at}.name is missing`);
    const body = item[inner];
    if (!isFields(body)) return Result.fail(`${at}.${inner} is missing`);
    const reader = new Reader(`${at}.${inner}`);
    const entry = read(reader, item.name, body);
    if (reader.problem !== undefined) return Result.fail(reader.problem);
    if (entry !== undefined) out.push(entry);
  }
  return Result.succeed(out);
};

const readExec = (reader: Reader, fields: Fields | undefined, file: string): Exec | undefined => {
  if (fields === undefined) return undefined;
  const command = reader.string(fields, "command");
  if (!command) return reader.fail(`${reader.at}.exec.command is missing`);
  const args = Array.isArray(fields.args) ? fields.args.map(String) : [];
  const env = Array.isArray(fields.env)
    ? fields.env.flatMap((item) =>
        isFields(item) && typeof item.name === "string"
          ? [{ name: item.name, value: item.value === undefined ? "" : String(item.value) }]
          : [],
      )
    : [];
  // A command with a path separator is relative to the kubeconfig; a bare name is found on PATH.
  const resolved = command.includes("/") ? (absolute(file, command) ?? command) : command;
  return {
    command: resolved,
    args,
    env,
    apiVersion: reader.string(fields, "apiVersion"),
    interactiveMode: reader.string(fields, "interactiveMode"),
  };
};

const fromDocument = (document: Fields, file: string): Result.Result<KubeConfigFile, Problem> =>
  Result.gen(function* () {
    const clusters = yield* entries(document, "clusters", "cluster", (reader, name, fields): Cluster => {
      const server = reader.string(fields, "server");
      if (!server) reader.fail(`${reader.at}.server is missing`);
      return {
        name,
        server: (server ?? "").replace(/\/$/, ""),
        caFile: absolute(file, reader.string(fields, "certificate-authority")),
        caData: reader.string(fields, "certificate-authority-data"),
        insecure: reader.boolean(fields, "insecure-skip-tls-verify"),
        tlsServerName: reader.string(fields, "tls-server-name"),
        proxyUrl: reader.string(fields, "proxy-url"),
      };
    });
    const users = yield* entries(document, "users", "user", (reader, name, fields): User => {
      const provider = reader.mapping(fields, "auth-provider");
      return {
        name,
        token: reader.string(fields, "token"),
        tokenFile: absolute(file, reader.string(fields, "tokenFile") ?? reader.string(fields, "token-file")),
        username: reader.string(fields, "username"),
        password: reader.string(fields, "password"),
        certFile: absolute(file, reader.string(fields, "client-certificate")),
        certData: reader.string(fields, "client-certificate-data"),
        keyFile: absolute(file, reader.string(fields, "client-key")),
        keyData: reader.string(fields, "client-key-data"),
        exec: readExec(reader, reader.mapping(fields, "exec"), file),
        authProvider:
          provider === undefined
            ? undefined
            : { name: String(provider.name ?? ""), config: isFields(provider.config) ? provider.config : {} },
      };
    });
    const contexts = yield* entries(document, "contexts", "context", (reader, name, fields): Context => {
      const cluster = reader.string(fields, "cluster");
      if (!cluster) reader.fail(`${reader.at}.cluster is missing`);
      return {
        name,
        cluster: cluster ?? "",
        user: reader.string(fields, "user") || undefined,
        namespace: reader.string(fields, "namespace") || undefined,
      };
    });
    const current = document["current-context"];
    return {
      clusters,
      users,
      contexts,
      currentContext: typeof current === "string" && current !== "" ? current : undefined,
    };
  });

/**
 * Parse one kubeconfig file. The problem, if any, names a place in the file, never its content.
 *
 * @example
 * ```ts
 * parse("clusters: [unclosed", "/k") // Result.fail("a YAML syntax error at line 1, column 20 ...")
 * ```
 */
export const parse = (text: string, file: string): Result.Result<KubeConfigFile, Problem> => {
  if (text.trim() === "") return Result.fail("the kubeconfig is empty");
  // `prettyErrors: false` keeps the document's text out of the error messages we do not use anyway.
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: false, lineCounter: lines });
  const [error] = document.errors;
  if (error !== undefined) {
    const at = lines.linePos(error.pos[0]);
    const where = at === undefined ? "" : ` at line ${at.line}, column ${at.col}`;
    return Result.fail(`a YAML syntax error${where} (${error.code})`);
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  if (!isFields(value)) return Result.fail("the kubeconfig is not a mapping");
  return fromDocument(value, file);
};

/**
 * Merge files as kubectl does: the first definition of each name wins, and the first
 * `current-context` set.
 *
 * @example
 * ```ts
 * merge([first, second]).currentContext // first.currentContext ?? second.currentContext
 * ```
 */
export const merge = (files: ReadonlyArray<KubeConfigFile>): KubeConfigFile => {
  const firstByName = <T extends { readonly name: string }>(lists: ReadonlyArray<ReadonlyArray<T>>) => {
    const seen = new Map<string, T>();
    for (const list of lists) for (const item of list) if (!seen.has(item.name)) seen.set(item.name, item);
    return [...seen.values()];
  };
  return {
    clusters: firstByName(files.map((file) => file.clusters)),
    users: firstByName(files.map((file) => file.users)),
    contexts: firstByName(files.map((file) => file.contexts)),
    currentContext: files.map((file) => file.currentContext).find((name) => name !== undefined),
  };
};

/** The context in use with its cluster and user. */
export interface Selected {
  readonly context: string;
  readonly cluster: Cluster;
  readonly user: User;
  readonly namespace?: string | undefined;
}

/**
 * Select the requested context (else the current one) and check that its cluster and user exist.
 *
 * @example
 * ```ts
 * select(config, "prod") // Result.fail('the context "prod" is not defined') when absent
 * ```
 */
export const select = (
  config: KubeConfigFile,
  requested: string | undefined,
): Result.Result<Selected, Problem> => {
  const name = requested ?? config.currentContext;
  if (!name) return Result.fail("no current-context is set and no context was requested");
  const context = config.contexts.find((item) => item.name === name);
  if (context === undefined) return Result.fail(`the context ${JSON.stringify(name)} is not defined`);
  const cluster = config.clusters.find((item) => item.name === context.cluster);
  if (cluster === undefined) {
    return Result.fail(
      `the context ${JSON.stringify(name)} refers to an undefined cluster ${JSON.stringify(context.cluster)}`,
    );
  }
  const user =
    context.user === undefined ? undefined : config.users.find((item) => item.name === context.user);
  if (user === undefined && context.user !== undefined) {
    return Result.fail(
      `the context ${JSON.stringify(name)} refers to an undefined user ${JSON.stringify(context.user)}`,
    );
  }
  return Result.succeed({ context: name, cluster, user: user ?? { name: "" }, namespace: context.namespace });
};
