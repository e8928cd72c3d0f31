/**
 * URL paths of the Kubernetes API, parsed into what a request addresses: a discovery document, or
 * a group/version plus the remaining resource segments (resolved against the served types later).
 */

export type Target =
  | { readonly _tag: "Version" }
  | { readonly _tag: "LegacyRoot" }
  | { readonly _tag: "GroupsRoot" }
  | { readonly _tag: "Group"; readonly group: string }
  | { readonly _tag: "GroupVersion"; readonly group: string; readonly version: string }
  | { readonly _tag: "OpenApiV2" }
  | { readonly _tag: "OpenApiV3Root" }
  | { readonly _tag: "OpenApiV3"; readonly group: string; readonly version: string }
  | { readonly _tag: "Health"; readonly name: string }
  | {
      readonly _tag: "Resource";
      readonly group: string;
      readonly version: string;
      /** Legacy `/watch/` prefix used. */
      readonly watchPrefix: boolean;
      readonly segments: ReadonlyArray<string>;
    }
  | { readonly _tag: "Unknown" };

const decode = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

const resource = (group: string, version: string, rest: ReadonlyArray<string>): Target => {
  const watchPrefix = rest[0] === "watch";
  return { _tag: "Resource", group, version, watchPrefix, segments: watchPrefix ? rest.slice(1) : rest };
};

/**
 * Parses a request path (without the query string).
 *
 * @example
 * parse("/apis/apps/v1/namespaces/ns/deployments/web/scale")
 * // { _tag: "Resource", group: "apps", version: "v1", segments: ["namespaces","ns","deployments","web","scale"], ... }
 */
export const parse = (path: string): Target => {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const raw = trimmed.split("/").slice(1);
  const segs: Array<string> = [];
  for (const r of raw) {
    const d = decode(r);
    if (d === undefined) return { _tag: "Unknown" };
    segs.push(d);
  }
  const [a, b, c, ...rest] = segs;
  if (a === "version" && b === undefined) return { _tag: "Version" };
  if ((a === "healthz" || a === "livez" || a === "readyz") && b === undefined)
    return { _tag: "Health", name: a };
  if (a === "openapi") {
    if (b === "v2" && c === undefined) return { _tag: "OpenApiV2" };
    if (b === "v3" && c === undefined) return { _tag: "OpenApiV3Root" };
    if (b === "v3" && c === "api" && rest.length === 1)
      return { _tag: "OpenApiV3", group: "", version: rest[0] as string };
    if (b === "v3" && c === "apis" && rest.length === 2)
      return { _tag: "OpenApiV3", group: rest[0] as string, version: rest[1] as string };
    return { _tag: "Unknown" };
  }
  if (a === "api") {
    if (b === undefined) return { _tag: "LegacyRoot" };
    if (c === undefined) return { _tag: "GroupVersion", group: "", version: b };
    return resource("", b, [c, ...rest]);
  }
  if (a === "apis") {
    if (b === undefined) return { _tag: "GroupsRoot" };
    if (c === undefined) return { _tag: "Group", group: b };
    if (rest.length === 0) return { _tag: "GroupVersion", group: b, version: c };
    return resource(b, c, rest);
  }
  return { _tag: "Unknown" };
};
