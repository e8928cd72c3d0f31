/** The route-table matcher: typed parameters, declaration order, trailing `*`, methods, decoding. */
import { describe, expect, it } from "vitest";
import * as RouteTable from "../../src/api/RouteTable.ts";

const table = [
  RouteTable.route(["GET"], "/items", () => "list"),
  RouteTable.route(["POST"], "/items", () => "create"),
  RouteTable.route(["GET", "PUT"], "/items/:name", ({ name }) => `item ${name}`),
  RouteTable.route("any", "/files/*", ({ rest }) => `file ${rest.join("/")}`),
  RouteTable.route("any", "/:kind/:name", ({ kind, name }) => `other ${kind} ${name}`),
];

describe("RouteTable.match", () => {
  it.each<[string, ReadonlyArray<string>, RouteTable.Match<string>]>([
    ["GET", ["items"], { _tag: "Matched", value: "list", pattern: "/items" }],
    ["post", ["items"], { _tag: "Matched", value: "create", pattern: "/items" }],
    ["PUT", ["items", "a"], { _tag: "Matched", value: "item a", pattern: "/items/:name" }],
    // the first declared route wins over a later one that also matches
    ["GET", ["items", "b"], { _tag: "Matched", value: "item b", pattern: "/items/:name" }],
    // ... unless it refuses the method and a later one takes it
    ["DELETE", ["items", "c"], { _tag: "Matched", value: "other items c", pattern: "/:kind/:name" }],
    ["GET", ["files", "a", "b"], { _tag: "Matched", value: "file a/b", pattern: "/files/*" }],
    [
      "DELETE",
      ["items"],
      { _tag: "MethodNotAllowed", value: "list", pattern: "/items", allowed: ["GET", "POST"] },
    ],
    // `*` needs at least one segment; parameters never bind an empty segment
    ["GET", ["files"], { _tag: "NotFound" }],
    ["GET", ["x", ""], { _tag: "NotFound" }],
    ["GET", ["x", "y", "z"], { _tag: "NotFound" }],
    ["GET", [], { _tag: "NotFound" }],
  ])("%s %j", (method, path, expected) => {
    expect(RouteTable.match(table, method, path)).toEqual(expected);
  });
});

describe("RouteTable.segments", () => {
  it.each<[string, ReadonlyArray<string> | undefined]>([
    ["/", [""]],
    ["/api/v1/", ["api", "v1"]],
    ["/api/v1/namespaces/a%2Fb", ["api", "v1", "namespaces", "a/b"]],
    ["/api//v1", ["api", "", "v1"]],
    ["/bad/%E0%A4%A", undefined],
  ])("%s", (path, expected) => {
    expect(RouteTable.segments(path)).toEqual(expected);
  });
});
