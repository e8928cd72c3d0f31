/**
 * Declared route tables: each route is a set of methods and a path pattern whose named parameters
 * reach its handler typed by the pattern itself (`/apis/:group/:version` gives
 * `{ group: string; version: string }`; a trailing `*` takes one or more remaining segments as
 * `rest`).
 * Matching is segment by segment on the decoded path, in declaration order.
 */

/** A decoded path split into its segments. */
export type Segments = ReadonlyArray<string>;

type ParamName<S extends string> = S extends `:${infer Name}` ? Name : never;
type ParamNames<P extends string> = P extends `${infer Head}/${infer Tail}`
  ? ParamName<Head> | ParamNames<Tail>
  : ParamName<P>;
type HasRest<P extends string> = P extends `${string}*` ? true : false;

/** The parameters of a pattern: one string per `:name`, plus `rest` for a trailing `*`. */
export type Params<P extends string> = { readonly [K in ParamNames<P>]: string } & (HasRest<P> extends true
  ? { readonly rest: Segments }
  : unknown);

/** The methods a route answers: a list, or `"any"`. */
export type Methods = ReadonlyArray<string> | "any";

/** One declared route producing an `A` from its parameters. */
export interface Route<A> {
  readonly methods: Methods;
  readonly pattern: string;
  /** The pattern split into its segments once, when the route is declared. */
  readonly segments: Segments;
  readonly handle: (params: Readonly<Record<string, string | Segments>>) => A;
}

const patternSegments = (pattern: string): Segments => pattern.split("/").filter((s) => s.length > 0);

/**
 * Declares a route.
 *
 * @example
 * ```ts
 * const groupVersion = RouteTable.route(["GET"], "/apis/:group/:version", ({ group, version }) => ({ group, version }));
 * ```
 */
export const route = <const P extends string, A>(
  methods: Methods,
  pattern: P,
  handle: (params: Params<P>) => A,
): Route<A> => ({
  methods,
  pattern,
  segments: patternSegments(pattern),
  handle: handle as (params: Readonly<Record<string, string | Segments>>) => A,
});

/** What a table makes of one request. */
export type Match<A> =
  | { readonly _tag: "Matched"; readonly value: A; readonly pattern: string }
  /** The path matched, the method did not: `value` is the first route's for the path. */
  | {
      readonly _tag: "MethodNotAllowed";
      readonly value: A;
      readonly pattern: string;
      readonly allowed: ReadonlyArray<string>;
    }
  | { readonly _tag: "NotFound" };

/** Whether `path` fits `pattern` (checked before any parameter is bound: most routes do not fit). */
const fits = (pattern: Segments, path: Segments): boolean => {
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i] as string;
    if (part === "*" && i === pattern.length - 1) return path.length > i;
    const segment = path[i];
    if (segment === undefined) return false;
    if (part.charCodeAt(0) === 0x3a /* ":" */) {
      if (segment.length === 0) return false;
    } else if (part !== segment) return false;
  }
  return path.length === pattern.length;
};

const bind = (pattern: Segments, path: Segments): Record<string, string | Segments> | undefined => {
  if (!fits(pattern, path)) return undefined;
  const params: Record<string, string | Segments> = {};
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i] as string;
    if (part === "*" && i === pattern.length - 1) params.rest = path.slice(i);
    else if (part.startsWith(":")) params[part.slice(1)] = path[i] as string;
  }
  return params;
};

const allows = (methods: Methods, method: string): boolean =>
  methods === "any" || methods.includes(method.toUpperCase());

/**
 * Matches a method and path against a table: the first route (in declaration order) whose pattern
 * and methods both match; else, when some pattern matched, `MethodNotAllowed` with every method
 * the matching patterns allow.
 *
 * @example
 * ```ts
 * RouteTable.match([groupVersion], "GET", ["apis", "apps", "v1"]);
 * // { _tag: "Matched", value: { group: "apps", version: "v1" }, pattern: "/apis/:group/:version" }
 * ```
 */
export const match = <A>(routes: ReadonlyArray<Route<A>>, method: string, path: Segments): Match<A> => {
  let refused: { readonly value: A; readonly pattern: string } | undefined;
  const allowed: Array<string> = [];
  for (const candidate of routes) {
    const params = bind(candidate.segments, path);
    if (params === undefined) continue;
    if (allows(candidate.methods, method))
      return { _tag: "Matched", value: candidate.handle(params), pattern: candidate.pattern };
    refused ??= { value: candidate.handle(params), pattern: candidate.pattern };
    for (const m of candidate.methods === "any" ? [] : candidate.methods)
      if (!allowed.includes(m)) allowed.push(m);
  }
  return refused === undefined ? { _tag: "NotFound" } : { _tag: "MethodNotAllowed", ...refused, allowed };
};

/**
 * Splits a request path into decoded segments (one trailing slash ignored); `undefined` when a
 * segment is not valid percent-encoding.
 *
 * @example
 * ```ts
 * RouteTable.segments("/api/v1/namespaces/a%2Fb/"); // ["api", "v1", "namespaces", "a/b"]
 * ```
 */
export const segments = (path: string): Segments | undefined => {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const decoded: Array<string> = [];
  for (const raw of trimmed.split("/").slice(1)) {
    if (!raw.includes("%")) {
      decoded.push(raw);
      continue;
    }
    try {
      decoded.push(decodeURIComponent(raw));
    } catch {
      return undefined;
    }
  }
  return decoded;
};
