// Where a sample of the overhead benchmark belongs (overhead.bench.ts): a CPU sample of V8's
// sampling profiler or an allocation sample of its sampling heap profiler is given to the
// innermost frame of its stack that belongs to a known seam of the framework (watch-event decode,
// cause detection, handler invocation, patch building, request sending, logging, metrics,
// orchestration), to the emulator, to Effect's own runtime, to the collector, or to the
// benchmark's own creating of objects. Both profiles come from node:inspector: the CPU profile as
// a flat list of nodes with their children's ids, the heap profile as a tree.

/** The seams, by the source files of their frames; the first that matches a frame decides. */
export const SEAMS: ReadonlyArray<readonly [string, RegExp]> = [
  ["handler invocation", /packages\/runtime\/src\/execution\//],
  [
    "watch-event decode",
    /packages\/client\/src\/internal\/(jsonLines|watching)\.ts|packages\/watcher\/src\//,
  ],
  ["cause detection", /packages\/causes\/src\/|packages\/registry\/src\//],
  [
    "patch building",
    /packages\/structs\/src\/|packages\/storage\/src\/|packages\/runtime\/src\/PatchApplier\.ts/,
  ],
  // The metric series' updates, wherever they are made from (requests, cycles, handlers, watches).
  ["metrics", /packages\/client\/src\/MetricSeries\.ts|packages\/runtime\/src\/Metrics\.ts/],
  ["request sending", /packages\/client\/src\/|packages\/testing\/src\/kubeapi\//],
  // An in-process request's answer runs under internal/apiServerSide.ts: the API server's.
  [
    "emulator (API server)",
    /packages\/(emulator|testing)\/src\/|runtime\/bench\/internal\/apiServerSide\.ts/,
  ],
  ["logging", /packages\/runtime\/src\/Logging\.ts/],
  ["orchestration", /packages\/runtime\/src\//],
];

/** The seams that are the framework's own work (the rest: the emulator, the collector, the bench). */
export const FRAMEWORK: ReadonlySet<string> = new Set([
  "watch-event decode",
  "cause detection",
  "handler invocation",
  "patch building",
  "request sending",
  "logging",
  "metrics",
  "orchestration",
  "Effect runtime",
]);

/** A frame as both profiles give it. */
export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}

/** A node of a CPU profile (`Profiler.stop`). */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: ReadonlyArray<number>;
}

/** A CPU profile: its nodes, and for each sample its node and the time since the previous one. */
export interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>;
  readonly samples: ReadonlyArray<number>;
  readonly timeDeltas: ReadonlyArray<number>;
}

/** A node of a heap profile (`HeapProfiler.stopSampling`): a tree. */
export interface HeapNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: ReadonlyArray<HeapNode>;
}

/** A sampling heap profile: its tree, and its samples (bytes, scaled to all allocations, by node). */
export interface HeapProfile {
  readonly head: HeapNode;
  readonly samples: ReadonlyArray<{ readonly size: number; readonly nodeId: number }>;
}

/**
 * The seam of a frame of the benchmark's own files (the entry and its operator's set-up): the handler is the framework's call of user
 * code, the log sink stands for a logging backend, and the rest creates the objects (a client's
 * work).
 */
const benchSeamOf = (functionName: string): string =>
  functionName === "create_fn" || functionName === "delete_fn"
    ? "handler invocation"
    : functionName === "benchLogSink"
      ? "logging"
      : "objects created (bench)";

/** The seam of every node, given each node's frame and parent: its innermost known seam decides. */
const seamsOf = (frames: ReadonlyMap<number, CallFrame>, parents: ReadonlyMap<number, number>) => {
  const memo = new Map<number, string>();
  const seamOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const { url, functionName } = frames.get(id) ?? { url: "", functionName: "" };
    let seam: string | undefined;
    if (functionName === "(garbage collector)") seam = "GC";
    else if (/overhead\.bench\.ts|bench\/internal\/benchOperator\.ts/.test(url))
      seam = benchSeamOf(functionName);
    else if (functionName === "(idle)" || functionName === "(program)") seam = "idle/other";
    else seam = SEAMS.find(([, pattern]) => pattern.test(url))?.[0];
    if (seam === undefined) {
      const up = parents.get(id);
      seam =
        up === undefined ? (url.includes("node_modules/effect") ? "Effect runtime" : "other") : seamOf(up);
      if (seam === "other" && url.includes("node_modules/effect")) seam = "Effect runtime";
    }
    memo.set(id, seam);
    return seam;
  };
  return seamOf;
};

const add = (totals: Map<string, number>, seam: string, amount: number): void => {
  totals.set(seam, (totals.get(seam) ?? 0) + amount);
};

/**
 * Microseconds of CPU samples per seam (idle time left out).
 *
 * @example
 * splitProfile(profile).get("orchestration") // µs of the samples whose innermost seam is that
 */
export const splitProfile = (profile: Profile): Map<string, number> => {
  const frames = new Map<number, CallFrame>();
  const parents = new Map<number, number>();
  for (const node of profile.nodes) {
    frames.set(node.id, node.callFrame);
    for (const child of node.children ?? []) parents.set(child, node.id);
  }
  const seamOf = seamsOf(frames, parents);
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    add(totals, seamOf(id), profile.timeDeltas[i + 1] ?? 0);
  });
  totals.delete("idle/other");
  return totals;
};

/**
 * Bytes allocated per seam, from a sampling heap profile that kept the samples of collected
 * objects too (so it counts all allocations, not what was still alive).
 *
 * @example
 * splitAllocations(profile).get("patch building") // bytes allocated by the patches' code
 */
export const splitAllocations = (profile: HeapProfile): Map<string, number> => {
  const frames = new Map<number, CallFrame>();
  const parents = new Map<number, number>();
  const walk = (node: HeapNode) => {
    frames.set(node.id, node.callFrame);
    for (const child of node.children ?? []) {
      parents.set(child.id, node.id);
      walk(child);
    }
  };
  walk(profile.head);
  const seamOf = seamsOf(frames, parents);
  const totals = new Map<string, number>();
  for (const sample of profile.samples) add(totals, seamOf(sample.nodeId), sample.size);
  totals.delete("idle/other");
  return totals;
};
