// Covers the split of request targets into path and query: the same as URL parsing gives, for
// plain targets (split directly) and for unusual ones (dot segments, percent-encoding, fragments).
import { describe, expect, it } from "vitest";
import { targetOf } from "../../../src/server/internal/nodeBridge.ts";

/** What `new URL` makes of a target: the reference `targetOf` must agree with. */
const byUrl = (target: string) => {
  const url = new URL(target, "http://emulator");
  return { path: url.pathname, query: [...url.searchParams] };
};

describe("targetOf", () => {
  it.each([
    "/",
    "/api/v1/namespaces",
    "/api/v1/namespaces/default/configmaps/a.b-c",
    "/apis/kopf.dev/v1/namespaces/ns/kopfexamples/x/status?fieldManager=kopf&dryRun=All",
    "/api/v1/pods?watch=true&labelSelector=app%3Dweb%2Ctier+in+(a,b)&fieldSelector=metadata.name!%3Dx",
    "/api/v1/pods?watch=1&watch=2&=&a",
    "/api/v1/pods/",
    "/api/v1/namespaces/a%2Fb",
    "/api/v1/../v1/namespaces",
    "/api/v1/./namespaces/%2e%2e/x",
    "//evil/api",
    '/api/v1/pods?x=<a>&y="q"',
    "/api/v1/pods#frag?x=1",
    "/api/v1/ünicode?ä=ö",
    "/api\\v1\\pods",
  ])("splits %s as URL parsing does", (target) => {
    const split = targetOf(target);
    expect({ path: split.path, query: [...split.query] }).toEqual(byUrl(target));
  });
});
