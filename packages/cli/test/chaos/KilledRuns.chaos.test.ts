/**
 * `kopf run` processes killed with SIGKILL (`npm run chaos`): one operator at a time serves a
 * namespace of an HTTPS emulator; objects are created in eight waves and deleted in four, and after
 * each wave the process is killed at a random moment once it is busy (inside handlers, between a
 * handler's end and its progress write) and a new one started at once. Two creation handlers and
 * a deletion handler write what they do to a journal (start and end, with their process id).
 *
 * Counted and asserted zero: objects never handled, handlers that never finished, results
 * missing while the object is marked handled, progress records left behind, re-runs that no
 * kill explains (a handler started again although the process that ran it before was not killed
 * while it ran or within a few seconds after it ended, before its outcome could be written),
 * deletion handlers that never ran, finalizers stuck after deletion. The explained
 * re-runs are printed with the kills.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KubeApi } from "@kopf/client";
import { EmulatorServer } from "@kopf/emulator";
import { type RawBody, Resource } from "@kopf/structs";
import { Clusters, KopfRunner } from "@kopf/testing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "../../bin/kopf.js");
const OBJECTS = Number(process.env.KILLED_RUNS_OBJECTS ?? 40);
const NS = "killed";
const kex = Resource.make({ group: "kopf.dev", version: "v1", plural: "kopfexamples", namespaced: true });
const namespaces = Resource.make({ group: "", version: "v1", plural: "namespaces", namespaced: false });
const crds = Resource.make({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  namespaced: false,
});
const PREFIX = "kopf.zalando.org/";
const FINALIZER = "kopf.zalando.org/KopfFinalizerMarker";

const HANDLERS = `import { appendFileSync } from "node:fs";
import * as kopf from "kopf";
const journal = process.env.KILLED_RUNS_JOURNAL;
const note = (line) => appendFileSync(journal, \`\${Date.now()} \${process.pid} \${line}\\n\`);
const pause = (ms) => new Promise((done) => setTimeout(done, ms));
for (const id of ["first", "second"]) {
  kopf.on.create("kopfexamples", { id }, async ({ name }) => {
    note(\`start \${id} \${name}\`);
    await pause(Math.random() * 300);
    note(\`end \${id} \${name}\`);
    return { by: id, name };
  });
}
kopf.on.delete("kopfexamples", { id: "cleanup" }, async ({ name }) => {
  note(\`start cleanup \${name}\`);
  await pause(Math.random() * 200);
  note(\`end cleanup \${name}\`);
});
`;

let dir: string;
let journal: string;
let kubeconfig: string;
let context: Context.Context<KubeApi | EmulatorServer>;
let close: () => Promise<void>;
const kills: Array<{ readonly pid: number; readonly at: number }> = [];

const api = <A>(use: (api: KubeApi["Service"]) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* use(yield* KubeApi);
    }).pipe(Effect.provide(context)),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kopf-killed-"));
  journal = join(dir, "journal.txt");
  writeFileSync(journal, "");
  writeFileSync(join(dir, "handlers.ts"), HANDLERS);
  const scope = Scope.makeUnsafe();
  context = (await Effect.runPromise(Layer.buildWithScope(Clusters.https(), scope))) as Context.Context<
    KubeApi | EmulatorServer
  >;
  close = () => Effect.runPromise(Scope.close(scope, Exit.void));
  kubeconfig = join(dir, "kubeconfig");
  await Effect.runPromise(Context.get(context, EmulatorServer).writeKubeconfig(kubeconfig));
  await api((kube) =>
    Effect.andThen(
      kube.create(crds, KopfRunner.kopfExampleCrd),
      kube.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }),
    ),
  );
}, 90_000);

afterAll(async () => {
  await close?.();
});

/** One `kopf run` process with its output kept (the tail, for a failure's message). */
const launch = (): { readonly child: ChildProcess; readonly output: () => string } => {
  const child = spawn(process.execPath, [bin, "run", "--standalone", "-n", NS, join(dir, "handlers.ts")], {
    cwd: dir,
    env: { ...process.env, KUBECONFIG: kubeconfig, KILLED_RUNS_JOURNAL: journal },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    appendFileSync(join(dir, `operator-${child.pid}.log`), chunk);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, output: () => output };
};

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((done) => child.once("exit", () => done()));

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** How many handlers process `pid` has started so far (from the journal). */
const startsOf = (pid: number): number =>
  readFileSync(journal, "utf-8")
    .split("\n")
    .filter((line) => line.split(" ")[1] === String(pid) && line.split(" ")[2] === "start").length;

/**
 * Feeds the operator work in waves and kills it with SIGKILL after each wave, once it has started
 * 1–4 handlers (or at least one, after 10 s) and then 0–350 ms more — so kills land inside
 * handlers and between a handler's end and its progress write — starting a new one at once. Every
 * wave leaves work to do, so each kill finds the operator busy however fast it is; an operator
 * that starts no handler within 60 s fails the test. Answers the operator left running.
 */
const killAfterEachWave = async (
  current: ReturnType<typeof launch>,
  waves: ReadonlyArray<() => Promise<void>>,
): Promise<ReturnType<typeof launch>> => {
  let operator = current;
  for (const wave of waves) {
    await wave();
    const pid = operator.child.pid;
    if (pid === undefined) throw new Error("an operator did not start");
    const target = 1 + Math.floor(Math.random() * 4);
    const enough = await eventually(async () => startsOf(pid) >= target, 10_000);
    if (!enough && !(await eventually(async () => startsOf(pid) >= 1, 50_000))) {
      throw new Error(`the operator ${pid} started no handler in 60 s:\n${operator.output().slice(-4000)}`);
    }
    await sleep(Math.random() * 350);
    kills.push({ pid, at: Date.now() });
    operator.child.kill("SIGKILL");
    await exited(operator.child);
    operator = launch();
  }
  return operator;
};

/** `items` cut into `count` slices of about the same size. */
const slices = <A>(items: ReadonlyArray<A>, count: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: count }, (_, i) =>
    items.slice(Math.floor((i * items.length) / count), Math.floor(((i + 1) * items.length) / count)),
  );

const objects = () =>
  api((kube) => kube.list(kex, { namespace: NS })).then((list) => list.items as ReadonlyArray<RawBody>);

const annotations = (object: RawBody): Record<string, string> =>
  (object.metadata?.annotations ?? {}) as Record<string, string>;

/** Polls `check` until it holds or `timeoutMs` passes; answers whether it held. */
const eventually = async (check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(250);
  }
  return check();
};

interface Run {
  readonly at: number;
  readonly pid: number;
  readonly ended: boolean;
  /** When it ended (epoch ms), if it did. */
  readonly endedAt?: number;
}

/**
 * How long after a handler ended a kill may still explain its re-run: the window in which its
 * outcome is not yet written (the rest of the processing cycle and the patch), generous for a
 * loaded machine. A re-run after a kill later than this means an outcome was lost.
 */
const WRITE_WINDOW_MS = 5_000;

/** The journal as runs per `handler object`, in order, each with whether it ended. */
const runs = (): Map<string, Array<Run>> => {
  const byKey = new Map<string, Array<Run>>();
  for (const line of readFileSync(journal, "utf-8").split("\n")) {
    const [at, pid, what, id, name] = line.split(" ");
    if (name === undefined) continue;
    const key = `${id} ${name}`;
    const list = byKey.get(key) ?? [];
    if (what === "start") list.push({ at: Number(at), pid: Number(pid), ended: false });
    else {
      const open = list.findLastIndex((run) => run.pid === Number(pid) && !run.ended);
      if (open >= 0) list[open] = { ...list[open]!, ended: true, endedAt: Number(at) };
    }
    byKey.set(key, list);
  }
  return byKey;
};

/**
 * Re-runs of each handler: explained when the process of the run before it was killed after that
 * run began, and before it ended or within the write window after its end.
 */
const reRuns = (byKey: Map<string, Array<Run>>) => {
  const explained: Array<string> = [];
  const unexplained: Array<string> = [];
  for (const [key, list] of byKey) {
    list.forEach((run, i) => {
      if (i === 0) return;
      const before = list[i - 1]!;
      const kill = kills.find(
        (k) =>
          k.pid === before.pid &&
          k.at >= before.at &&
          k.at <= run.at &&
          (before.endedAt === undefined || k.at - before.endedAt <= WRITE_WINDOW_MS),
      );
      (kill === undefined ? unexplained : explained).push(`${key} (run ${i + 1}, before: pid ${before.pid})`);
    });
  }
  return { explained, unexplained };
};

describe("kopf run killed with SIGKILL", () => {
  it(`handles ${OBJECTS} objects and their deletion with no result lost and every re-run explained`, async () => {
    const names = Array.from({ length: OBJECTS }, (_, i) => `killed-${i}`);
    let operator = launch();
    // Creation: the objects arrive in eight waves, the operator killed after each.
    const create = (name: string) =>
      api((kube) =>
        kube.create(
          kex,
          { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name }, spec: {} },
          {
            namespace: NS,
          },
        ),
      );
    operator = await killAfterEachWave(
      operator,
      slices(names, 8).map((wave) => () => Promise.all(wave.map(create)).then(() => undefined)),
    );
    const handled = async () =>
      (await objects()).filter((o) => `${PREFIX}last-handled-configuration` in annotations(o)).length ===
      OBJECTS;
    const settled = await eventually(handled, 120_000);
    const created = await objects();
    const byKeyCreated = runs();

    // Deletion: the objects deleted in four waves, the operator killed after each.
    const remove = (name: string) => api((kube) => kube.delete(kex, { namespace: NS, name }));
    operator = await killAfterEachWave(
      operator,
      slices(names, 4).map((wave) => () => Promise.all(wave.map(remove)).then(() => undefined)),
    );
    const gone = async () => (await objects()).length === 0;
    const allGone = await eventually(gone, 120_000);
    const left = await objects();
    operator.child.kill("SIGTERM");
    await exited(operator.child);

    const byKey = runs();
    const lost = created.filter((o) => !(`${PREFIX}last-handled-configuration` in annotations(o)));
    const missingResults = created.filter((o) => {
      const status = (o.status ?? {}) as Record<string, { by?: string } | undefined>;
      return status.first?.by !== "first" || status.second?.by !== "second";
    });
    const progressLeft = created.filter((o) =>
      Object.keys(annotations(o)).some((key) => key === `${PREFIX}first` || key === `${PREFIX}second`),
    );
    const unfinished = names.flatMap((name) =>
      ["first", "second"].filter((id) => !(byKeyCreated.get(`${id} ${name}`) ?? []).some((run) => run.ended)),
    );
    const cleanupsMissing = names.filter(
      (name) => !(byKey.get(`cleanup ${name}`) ?? []).some((r) => r.ended),
    );
    const stuck = left.filter((o) => (o.metadata?.finalizers ?? []).includes(FINALIZER));
    const { explained, unexplained } = reRuns(byKey);
    console.log(
      [
        `killed runs: ${OBJECTS} objects, ${kills.length} SIGKILLs`,
        `  handled after the kills: ${settled}, all gone after deletion: ${allGone}`,
        `  lost: ${lost.length}, results missing while marked handled: ${missingResults.length}`,
        `  progress left: ${progressLeft.length}, handlers never finished: ${unfinished.length}`,
        `  deletion handlers never finished: ${cleanupsMissing.length}, finalizers stuck: ${stuck.length}`,
        `  re-runs explained by a kill: ${explained.length}, unexplained: ${unexplained.length}`,
        ...unexplained.map((line) => `    unexplained: ${line}`),
      ].join("\n"),
    );
    // Kills inside a handler: the process had started a handler it had not ended.
    const insideHandlers = kills.filter((kill) =>
      [...byKey.values()].some((list) => list.some((run) => run.pid === kill.pid && !run.ended)),
    ).length;
    console.log(`  kills inside a handler: ${insideHandlers} of ${kills.length}`);
    expect(kills.length).toBe(12);
    expect(insideHandlers).toBeGreaterThan(0);
    expect(lost.map((o) => o.metadata?.name)).toEqual([]);
    expect(missingResults.map((o) => o.metadata?.name)).toEqual([]);
    expect(progressLeft.map((o) => o.metadata?.name)).toEqual([]);
    expect(unfinished).toEqual([]);
    expect(cleanupsMissing).toEqual([]);
    expect(stuck.map((o) => o.metadata?.name)).toEqual([]);
    expect(left.map((o) => o.metadata?.name)).toEqual([]);
    expect(unexplained).toEqual([]);
  }, 900_000);
});
