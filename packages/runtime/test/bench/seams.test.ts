// The overhead benchmark's split of its profiles by seam (bench/internal/seams.ts): the innermost
// frame of a known seam decides, Effect's own frames above no seam are its runtime, the benchmark's
// handler and log sink stand for user code and a logging backend, idle time is left out; the same
// for CPU samples (time since the previous sample) and for allocation samples (bytes).
import { describe, expect, it } from "vitest";
import {
  FRAMEWORK,
  type HeapNode,
  type HeapProfile,
  type Profile,
  splitAllocations,
  splitProfile,
} from "../../bench/internal/seams.ts";

const frame = (functionName: string, url: string) => ({ functionName, url });
const RUNTIME = "file:///repo/packages/runtime/src/ObjectQueues.ts";
const EXECUTION = "file:///repo/packages/runtime/src/execution/Invocation.ts";
const EFFECT = "file:///repo/node_modules/.pnpm/effect@4.1.5/node_modules/effect/dist/internal/effect.js";
const EMULATOR = "file:///repo/packages/emulator/src/api/Writes.ts";
const STRUCTS = "file:///repo/packages/structs/src/Patch.ts";
const BENCH = "file:///repo/packages/runtime/bench/overhead.bench.ts";
// The benchmark's operator set-up (its handler and log sink) is the benchmark's own too.
const OPERATOR = "file:///repo/packages/runtime/bench/internal/benchOperator.ts";

// (root)
// ├── runLoop (effect)                      2: no seam below the root: Effect runtime
// │   └── worker (runtime/ObjectQueues)     3: orchestration
// │       ├── runLoop (effect)              4: inside orchestration: orchestration
// │       ├── invoke (runtime/execution)    5: handler invocation
// │       │   └── create_fn (bench op.)     6: handler invocation
// │       ├── Patch (structs)               7: patch building
// │       └── handle (emulator)             8: emulator
// │           └── JSON.stringify ("")       9: the emulator's
// ├── benchLogSink (bench op.)              10: logging
// ├── create (bench)                        11: objects created (bench)
// ├── (garbage collector)                   12: GC
// └── (idle)                                13: left out
const tree: HeapNode = {
  id: 1,
  callFrame: frame("(root)", ""),
  children: [
    {
      id: 2,
      callFrame: frame("runLoop", EFFECT),
      children: [
        {
          id: 3,
          callFrame: frame("worker", RUNTIME),
          children: [
            { id: 4, callFrame: frame("runLoop", EFFECT) },
            {
              id: 5,
              callFrame: frame("invoke", EXECUTION),
              children: [{ id: 6, callFrame: frame("create_fn", OPERATOR) }],
            },
            { id: 7, callFrame: frame("Patch", STRUCTS) },
            {
              id: 8,
              callFrame: frame("handle", EMULATOR),
              children: [{ id: 9, callFrame: frame("stringify", "") }],
            },
          ],
        },
      ],
    },
    { id: 10, callFrame: frame("benchLogSink", OPERATOR) },
    { id: 11, callFrame: frame("create", BENCH) },
    { id: 12, callFrame: frame("(garbage collector)", "") },
    { id: 13, callFrame: frame("(idle)", "") },
  ],
};

const expected: ReadonlyArray<readonly [number, string]> = [
  [2, "Effect runtime"],
  [3, "orchestration"],
  [4, "orchestration"],
  [5, "handler invocation"],
  [6, "handler invocation"],
  [7, "patch building"],
  [8, "emulator (API server)"],
  [9, "emulator (API server)"],
  [10, "logging"],
  [11, "objects created (bench)"],
  [12, "GC"],
];

/** The same tree as a CPU profile's flat list of nodes. */
const flat = (node: HeapNode): Profile["nodes"] => [
  { id: node.id, callFrame: node.callFrame, children: (node.children ?? []).map((child) => child.id) },
  ...(node.children ?? []).flatMap(flat),
];

describe("splitAllocations", () => {
  it.each(expected)("gives the bytes of node %i to %s", (nodeId, seam) => {
    const profile: HeapProfile = { head: tree, samples: [{ nodeId, size: 100 }] };
    expect([...splitAllocations(profile)]).toEqual([[seam, 100]]);
  });

  it("sums the samples of each seam and leaves idle time out", () => {
    const profile: HeapProfile = {
      head: tree,
      samples: [
        { nodeId: 7, size: 64 },
        { nodeId: 13, size: 1000 },
        { nodeId: 7, size: 32 },
        { nodeId: 9, size: 16 },
      ],
    };
    expect(Object.fromEntries(splitAllocations(profile))).toEqual({
      "patch building": 96,
      "emulator (API server)": 16,
    });
  });
});

describe("splitProfile", () => {
  it("gives each sample the time until the next one, by seam, idle left out", () => {
    // A sample's own delta is the time before it; the one after it is what it stands for.
    const profile: Profile = {
      nodes: flat(tree),
      samples: [5, 6, 13, 4, 12],
      timeDeltas: [0, 10, 20, 40, 80],
    };
    expect(Object.fromEntries(splitProfile(profile))).toEqual({
      "handler invocation": 30,
      orchestration: 80,
      GC: 0,
    });
  });
});

describe("the benchmark's own frames", () => {
  it.each([
    ["create_fn", OPERATOR, "handler invocation"],
    ["delete_fn", OPERATOR, "handler invocation"],
    ["benchLogSink", OPERATOR, "logging"],
    ["countEventLines", OPERATOR, "objects created (bench)"],
    ["remove", OPERATOR, "objects created (bench)"],
    ["run", BENCH, "objects created (bench)"],
  ])("gives %s of %s to %s", (functionName, url, seam) => {
    const head: HeapNode = {
      id: 1,
      callFrame: frame("(root)", ""),
      children: [{ id: 2, callFrame: frame(functionName, url) }],
    };
    expect([...splitAllocations({ head, samples: [{ nodeId: 2, size: 8 }] })]).toEqual([[seam, 8]]);
  });
});

describe("FRAMEWORK", () => {
  it("holds the framework's seams, not the emulator's, the collector's or the benchmark's", () => {
    expect(FRAMEWORK.has("orchestration")).toBe(true);
    expect(FRAMEWORK.has("Effect runtime")).toBe(true);
    for (const seam of ["emulator (API server)", "GC", "objects created (bench)", "other"])
      expect(FRAMEWORK.has(seam)).toBe(false);
  });
});
