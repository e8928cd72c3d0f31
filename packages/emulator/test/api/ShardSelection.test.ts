/**
 * Sharded list and watch with the `ShardedListAndWatch` gate on, as k8s.io/apiserver v0.36.3
 * defines them: the shardSelector keeps objects whose uid (or namespace) FNV-1a hash is in a
 * range, the shards partition the collection, lists echo the canonical selector in
 * `metadata.shardInfo`, watches filter events, invalid selectors are a 500 "invalid shard
 * selector"; with the gate off the parameter is ignored. Leases are validated as the server does.
 */
import { ShardRange } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Result from "effect/Result";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ShardSelection from "../../src/api/ShardSelection.ts";
import { cm, run, send, watch } from "./Harness.ts";

const NS = "/api/v1/namespaces/default/configmaps";
const HALVES = [
  "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
  "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
];
const q = (selector: string) => `shardSelector=${encodeURIComponent(selector)}`;
const seed = Effect.forEach(["a", "b", "c", "d", "e", "f", "g", "h"], (name) => send("POST", NS, cm(name)));
const gateOn = { featureGates: { ShardedListAndWatch: true } };

describe("sharded list", () => {
  it("the halves partition the collection by the uid's hash, and echo the selector", async () => {
    const [all, low, high] = await run(
      seed.pipe(
        Effect.andThen(
          Effect.all([
            send("GET", NS),
            send("GET", `${NS}?${q(HALVES[0] ?? "")}`),
            send("GET", `${NS}?${q(HALVES[1] ?? "")}`),
          ]),
        ),
      ),
      gateOn,
    );
    const uids = (body: any): Array<string> => body.items.map((i: any) => i.metadata.uid);
    expect(all.body.metadata.shardInfo).toBeUndefined();
    expect(low.body.metadata.shardInfo).toEqual({ selector: HALVES[0] });
    expect(high.body.metadata.shardInfo).toEqual({ selector: HALVES[1] });
    expect([...uids(low.body), ...uids(high.body)].sort()).toEqual(uids(all.body).sort());
    for (const uid of uids(low.body)) expect(ShardRange.fnv1a64(uid) < 1n << 63n).toBe(true);
    for (const uid of uids(high.body)) expect(ShardRange.fnv1a64(uid) >= 1n << 63n).toBe(true);
  });

  it("echoes terms joined by || in the canonical spacing", async () => {
    const r = await run(
      send(
        "GET",
        `${NS}?${q("shardRange( object.metadata.uid ,'0x0000000000000000','0x4000000000000000')||shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')")}`,
      ),
      gateOn,
    );
    expect(r.status).toBe(200);
    expect(r.body.metadata.shardInfo.selector).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
    );
  });

  it("is ignored with the gate off, as by servers without the feature", async () => {
    const r = await run(seed.pipe(Effect.andThen(send("GET", `${NS}?${q(HALVES[0] ?? "")}`))));
    expect(r.body.items.length).toBe(8);
    expect(r.body.metadata.shardInfo).toBeUndefined();
  });

  it.each([
    [
      "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
      'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
    ],
    [
      "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
      'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
    ],
    [
      "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
      "shard range start 0x8000000000000000 must be less than end 0x0000000000000000",
    ],
    [
      "shardRange(object.metadata.uid, '0x0000000000000000', '0xC000000000000000')",
      'hexEnd: invalid hex character "C" in "0xC000000000000000"',
    ],
    [
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000001')",
      "hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got \"0x10000000000000001\"",
    ],
    ["labels(object)", 'unsupported function "labels"; only shardRange() and || are allowed'],
  ])("rejects %s with a 500", async (selector, detail) => {
    const r = await run(send("GET", `${NS}?${q(selector)}`), gateOn);
    expect(r.status).toBe(500);
    expect(r.body.message).toBe(`invalid shard selector: ${detail}`);
    expect(r.body.reason).toBeUndefined();
  });
});

describe("sharded watch", () => {
  it("sends only the events of objects in the range", async () => {
    const { events, all } = await run(
      Effect.gen(function* () {
        const listed = yield* send("GET", NS);
        const rv = listed.body.metadata.resourceVersion;
        const opened = yield* Effect.forkChild(
          watch(`${NS}?watch=true&resourceVersion=${rv}&${q(HALVES[0] ?? "")}`, 2),
        );
        // The uids are random: create objects until two of them hash into the watched range
        // (with a fixed eight, fewer than two land there about once in 28 runs).
        let inRange = 0;
        for (let i = 0; inRange < 2; i++) {
          const created = yield* send("POST", NS, cm(`w${i}`));
          if (ShardRange.fnv1a64(created.body.metadata.uid) < 1n << 63n) inRange++;
        }
        const after = yield* send("GET", NS);
        const result = yield* Fiber.join(opened);
        return { events: result.events, all: after.body.items };
      }),
      gateOn,
    );
    // The list is in name order ("w11" before "w2"), the events in creation order.
    const low = all
      .filter((i: any) => ShardRange.fnv1a64(i.metadata.uid) < 1n << 63n)
      .sort((a: any, b: any) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((i: any) => i.metadata.name);
    expect(events.map((e: any) => e.object.metadata.name)).toEqual(low.slice(0, 2));
  });
});

describe("sharded watch with initial events", () => {
  it("sends the range's objects, then the initial-events bookmark (bookmarks are never filtered, apiserver@v0.36.3 pkg/storage/cacher/cacher.go)", async () => {
    const { events, all } = await run(
      Effect.gen(function* () {
        yield* seed;
        const listed = yield* send("GET", NS);
        const inHigh = listed.body.items.filter((i: any) => ShardRange.fnv1a64(i.metadata.uid) >= 1n << 63n);
        const opened = yield* watch(
          `${NS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=${listed.body.metadata.resourceVersion}&${q(HALVES[1] ?? "")}`,
          inHigh.length + 1,
        );
        return { events: opened.events, all: listed.body.items };
      }),
      gateOn,
    );
    const high = all
      .filter((i: any) => ShardRange.fnv1a64(i.metadata.uid) >= 1n << 63n)
      .map((i: any) => i.metadata.name);
    const added = events.filter((e: any) => e.type === "ADDED").map((e: any) => e.object.metadata.name);
    expect(added.sort()).toEqual(high.sort());
    expect(events.at(-1)?.type).toBe("BOOKMARK");
    expect(events.at(-1)?.object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
  });
});

describe("ShardSelection.parse", () => {
  it("keeps the field, the ranges and the canonical text", () => {
    const parsed = ShardSelection.parse(HALVES.join(" || "));
    expect(parsed._tag === "Success" && parsed.success.ranges).toEqual([
      { start: 0n, end: 1n << 63n },
      { start: 1n << 63n, end: ShardRange.SPACE },
    ]);
  });
});

/**
 * What k8s.io/apiserver@v0.36.3's pkg/sharding/parser.go (`Parse`, with cel-go v0.26.0's parser
 * and no macros) answers for each selector, run through that code: the echo is
 * k8s.io/apimachinery@v0.36.3's pkg/sharding/selector.go `String()`, the error is what
 * pkg/registry/generic/registry/store.go wraps after `invalid shard selector: `. Bounds are the
 * inclusive start and exclusive end of types.go's `ShardRangeRequirement`.
 */
const GO_PARSE: ReadonlyArray<[string, { echo: string } | { error: string }]> = [
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    { echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
  ],
  [
    "shardRange( object.metadata.uid ,'0x0000000000000000','0x4000000000000000')||shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
    {
      echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')",
    },
  ],
  [
    'shardRange(object.metadata.uid, "0x0000000000000000", "0x8000000000000000")',
    { echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
  ],
  [
    "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')",
    { echo: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')" },
  ],
  [
    "(shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'))",
    { echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
  ],
  [
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000') || shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
    {
      echo: "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000') || shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
    },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x4000000000000000', '0xc000000000000000')",
    {
      echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x4000000000000000', '0xc000000000000000')",
    },
  ],
  ["", { error: "empty shard selector is not allowed; omit the parameter for unfiltered lists" }],
  ["   ", { error: "empty shard selector is not allowed; omit the parameter for unfiltered lists" }],
  [
    "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
    {
      error:
        'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
    },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8')",
    {
      error:
        'hexEnd must be a 0x-prefixed 16-digit hex value, got "0x8" (did you mean "0x0000000000000008"?)',
    },
  ],
  [
    "shardRange(object.metadata.uid, '0X0000000000000000', '0x8000000000000000')",
    { error: "hexStart must have '0x' prefix, got \"0X0000000000000000\"" },
  ],
  [
    "shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')",
    { error: 'hexStart: invalid hex character "A" in "0x000000000000000A"' },
  ],
  [
    "shardRange(object.metadata.uid, '0x', '0x8000000000000000')",
    { error: "hexStart: hex value is required after '0x'" },
  ],
  [
    "shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')",
    { error: "hexStart must have '0x' prefix, got \"0000000000000000\"" },
  ],
  [
    "shardRange(object.metadata.uid, '0x100000000000000000', '0x8000000000000000')",
    { error: 'hexStart: hex value too long (18 chars, max 17): "100000000000000000"' },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
    { error: "hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got \"0x20000000000000000\"" },
  ],
  [
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
    { error: "shard range start 0x8000000000000000 must be less than end 0x8000000000000000" },
  ],
  [
    "shardRange(object.metadata.uid, '0x9000000000000000', '0x8000000000000000')",
    { error: "shard range start 0x9000000000000000 must be less than end 0x8000000000000000" },
  ],
  [
    "shardRange(object.metadata.uid, 0, '0x8000000000000000')",
    { error: "hexStart must be a string literal, got int64" },
  ],
  [
    "shardRange(object.metadata.uid, 0x0, '0x8000000000000000')",
    { error: "hexStart must be a string literal, got int64" },
  ],
  [
    "shardRange(object.metadata.uid, start, '0x8000000000000000')",
    { error: "hexStart must be a string literal (e.g. '0xff'), got expression kind 3" },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000')",
    { error: "shardRange() requires exactly 3 arguments, got 2" },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000', '0x1')",
    { error: "shardRange() requires exactly 3 arguments, got 4" },
  ],
  [
    "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
    {
      error:
        'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
    },
  ],
  [
    "shardRange(metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    {
      error:
        'unsupported field path "metadata.uid"; supported: object.metadata.uid, object.metadata.namespace',
    },
  ],
  [
    "shardRange(object['metadata'].uid, '0x0000000000000000', '0x8000000000000000')",
    {
      error:
        "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 1",
    },
  ],
  [
    "shardRange('object.metadata.uid', '0x0000000000000000', '0x8000000000000000')",
    {
      error:
        "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5",
    },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
    {
      error:
        'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
    },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
    { error: 'unsupported function "_&&_"; only shardRange() and || are allowed' },
  ],
  [
    "!shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    { error: 'unsupported function "!_"; only shardRange() and || are allowed' },
  ],
  [
    "hashRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    { error: 'unsupported function "hashRange"; only shardRange() and || are allowed' },
  ],
  [
    "object.shardRange('0x0000000000000000', '0x8000000000000000')",
    { error: "shardRange() requires exactly 3 arguments, got 2" },
  ],
  ["true", { error: "unexpected expression kind 5; expected shardRange() call or || operator" }],
  [
    "object.metadata.uid",
    { error: "unexpected expression kind 7; expected shardRange() call or || operator" },
  ],
  ["'x'", { error: "unexpected expression kind 5; expected shardRange() call or || operator" }],
  ["[1]", { error: "unexpected expression kind 4; expected shardRange() call or || operator" }],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'",
    { error: "CEL parse error: Syntax error: missing ')' at '<EOF>'" },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') ||",
    {
      error:
        "CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')) ",
    { error: "CEL parse error: Syntax error: extraneous input ')' expecting <EOF>" },
  ],
  [
    "shardRange(object.metadata.uid, r'0x0000000000000000', '0x8000000000000000')",
    { echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
  ],
  [
    "shardRange(object.metadata.uid, '''0x0000000000000000''', '0x8000000000000000')",
    { echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
  ],
  [
    "shardRange(object.metadata.uid, '\\x30x0000000000000000', '0x8000000000000000')",
    { echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
  ],
  [
    "shardRange(object.metadata.uid, b'0x0000000000000000', '0x8000000000000000')",
    { error: "hexStart must be a string literal, got []uint8" },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || true",
    { error: "unexpected expression kind 5; expected shardRange() call or || operator" },
  ],
  [
    "shardRange(object.metadata.uid, '0x0000000000000000' + '', '0x8000000000000000')",
    { error: "hexStart must be a string literal (e.g. '0xff'), got expression kind 1" },
  ],
  ["@@@", { error: "CEL parse error: Syntax error: token recognition error at: '@'" }],
  [
    "shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')||shardRange(object.metadata.uid,'0x8000000000000000','0x10000000000000000')||shardRange(object.metadata.uid,'0x0000000000000000','0x0000000000000001')",
    {
      echo: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000') || shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')",
    },
  ],
];

describe("ShardSelection.parse against k8s.io/apiserver@v0.36.3 pkg/sharding/parser.go", () => {
  it.each(GO_PARSE)("%j", (selector, expected) => {
    const parsed = ShardSelection.parse(selector);
    expect(Result.isSuccess(parsed) ? { echo: parsed.success.echo } : { error: parsed.failure }).toEqual(
      expected,
    );
  });

  it("answers every input, however malformed, with a selection or a message (a total function)", () => {
    const pieces = fc.constantFrom(
      "shardRange",
      "(",
      ")",
      ",",
      "||",
      "&&",
      "!",
      "-",
      ".",
      "[",
      "]",
      "{",
      "}",
      "?",
      ":",
      "'0x0000000000000000'",
      "'0x10000000000000000'",
      "object",
      "metadata",
      "uid",
      "namespace",
      "1",
      "r'x'",
      "b'y'",
      '"\\q"',
      " ",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces, { maxLength: 30 }).map((p) => p.join("")),
        ),
        (text) => {
          const parsed = ShardSelection.parse(text);
          return Result.isSuccess(parsed)
            ? parsed.success.echo.startsWith("shardRange(")
            : parsed.failure.length > 0;
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("matches a hash at the start of a range and not at its end (selector.go Matches)", () => {
    // fnv1a64("a") is 0xaf63dc4c8601ec8c (apimachinery pkg/sharding/hash.go HashField).
    const at = (start: string, end: string) =>
      ShardSelection.matches(
        Result.getOrThrow(ShardSelection.parse(`shardRange(object.metadata.uid, '${start}', '${end}')`)),
        { metadata: { uid: "a" } },
      );
    expect(at("0xaf63dc4c8601ec8c", "0xaf63dc4c8601ec8d")).toBe(true);
    expect(at("0x0000000000000000", "0xaf63dc4c8601ec8c")).toBe(false);
    expect(at("0xaf63dc4c8601ec8d", "0x10000000000000000")).toBe(false);
  });

  it("hashes the namespace's UTF-8 bytes for object.metadata.namespace (accessor.go)", () => {
    // HashField("ü") = 0ac20a07b71807ea, HashField("default") = ebada5168620c5fe.
    const selection = Result.getOrThrow(
      ShardSelection.parse(
        "shardRange(object.metadata.namespace, '0x0ac20a07b71807ea', '0x0ac20a07b71807eb')",
      ),
    );
    expect(ShardSelection.matches(selection, { metadata: { namespace: "ü", uid: "x" } })).toBe(true);
    expect(ShardSelection.matches(selection, { metadata: { namespace: "default", uid: "x" } })).toBe(false);
  });
});

describe("leases", () => {
  const LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  const lease = (spec: Record<string, unknown>) => ({
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "l" },
    spec,
  });
  it.each([
    [{ leaseDurationSeconds: 0 }, "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"],
    [
      { leaseTransitions: -1 },
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
    ],
  ])("rejects %j", async (spec, detail) => {
    const r = await run(send("POST", LEASES, lease(spec)));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain(detail);
  });

  it("drops strategy and preferredHolder, as with the CoordinatedLeaderElection gate off (pkg/registry/coordination/lease/strategy.go)", async () => {
    const [created, updated] = await run(
      Effect.all([
        send(
          "POST",
          LEASES,
          lease({ holderIdentity: "a", preferredHolder: "x", strategy: "OldestEmulationVersion" }),
        ),
        send("PUT", `${LEASES}/l`, lease({ holderIdentity: "b", preferredHolder: "y" })),
      ]),
    );
    expect(created.body.spec).toEqual({ holderIdentity: "a" });
    expect(updated.status).toBe(200);
    expect(updated.body.spec).toEqual({ holderIdentity: "b" });
  });

  it("stores client-go's record with MicroTime timestamps", async () => {
    const spec = {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2026-12-01T10:00:00.123456Z",
      renewTime: "2026-12-01T10:00:02.654321Z",
      leaseTransitions: 2,
    };
    const r = await run(send("POST", LEASES, lease(spec)));
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual(spec);
  });
});
