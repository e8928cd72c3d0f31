// The emulator benchmark's in-process part: the same workloads sent straight to
// `emulator.handle` (no sockets, no TLS, no HTTP), with the same watchers reading every event,
// in this process. Its CPU per write is the API machinery's alone, and far steadier from run to
// run than the HTTPS figures (whose socket writes and scheduling vary with the machine), so it
// is what shows a change to the emulator's own code: each workload runs `rounds` times after a
// warm-up, and the least CPU per write of the rounds is reported.
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import { KubeEmulator } from "../../src/index.ts";
import { BASE, createPatched, installCrd, runSteps, type Send, workloads } from "./workloads.ts";

export interface InProcessPhase {
  readonly name: string;
  readonly reference: boolean;
  /** Writes (or requests) per round. */
  readonly writes: number;
  readonly failed: number;
  /** The least of the rounds. */
  readonly microsPerWrite: number;
  readonly roundsMicrosPerWrite: ReadonlyArray<number>;
  readonly watchEvents: number;
  readonly watchEventsExpected: number;
}

const USER = { username: "bench", groups: ["system:masters"] };
const encoder = new TextEncoder();

/** Runs every workload `rounds` times against a fresh in-process emulator. */
export const runInProcess = async (options: {
  readonly writes: number;
  readonly warmUpWrites: number;
  readonly watchers: number;
  readonly loops: number;
  readonly rounds: number;
}): Promise<ReadonlyArray<InProcessPhase>> => {
  const scope = Effect.runSync(Scope.make());
  try {
    const context = await Effect.runPromise(Layer.buildWithScope(KubeEmulator.layer(), scope));
    const emulator = Context.get(context, KubeEmulator);
    const send: Send = (method, path, body, contentType = "application/json") => {
      const at = path.indexOf("?");
      return Effect.runPromise(
        emulator.handle({
          method,
          path: at === -1 ? path : path.slice(0, at),
          query: new URLSearchParams(at === -1 ? "" : path.slice(at + 1)),
          headers: {
            "user-agent": "emulator-bench/1",
            ...(body === undefined ? {} : { "content-type": contentType }),
          },
          body: body === undefined ? undefined : encoder.encode(JSON.stringify(body)),
          user: USER,
        }),
      ).then((response) => response.status);
    };
    await installCrd(send, " in-process");

    // The watchers, each a fiber reading its stream of events.
    let received = 0;
    const watchers = await Promise.all(
      Array.from({ length: options.watchers }, async () => {
        const response = await Effect.runPromise(
          emulator.handle({
            method: "GET",
            path: BASE,
            query: new URLSearchParams("watch=true"),
            headers: {},
            body: undefined,
            user: USER,
          }),
        );
        if (response._tag !== "Streaming") throw new Error("the in-process watch did not stream");
        return Effect.runFork(
          Stream.runForEach(response.body, (chunk) =>
            Effect.sync(() => {
              // Found natively: a loop over every byte of every event, for each watcher, cost
              // more CPU than some phases of the emulator itself and counted as the emulator's.
              for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) received++;
            }),
          ),
        );
      }),
    );
    let owed = (await createPatched(send, options.loops)) * options.watchers;
    const delivered = async (expected: number) => {
      for (const until = performance.now() + 30_000; received < expected && performance.now() < until; )
        await new Promise((done) => setTimeout(done, 1));
    };

    const all = workloads(send, []);
    const run = async (workload: (typeof all)[number], round: string, writes: number) => {
      await delivered(owed);
      const before = received;
      const cpu = process.cpuUsage();
      const { ok, failed } = await runSteps(
        workload,
        round,
        Math.ceil(writes / workload.writesPerStep),
        options.loops,
      );
      if (workload.reference !== true) owed += ok * workload.writesPerStep * options.watchers;
      await delivered(owed);
      const used = process.cpuUsage(cpu);
      const made = (ok + failed) * workload.writesPerStep;
      return {
        made,
        failed,
        micros: (used.user + used.system) / Math.max(1, made),
        events: received - before,
        expected: owed - before,
      };
    };
    for (const workload of all) await run(workload, "iw", options.warmUpWrites);
    const phases: Array<InProcessPhase> = [];
    for (const workload of all) {
      const rounds = [];
      for (let r = 0; r < options.rounds; r++) rounds.push(await run(workload, `i${r}`, options.writes));
      const last = rounds[rounds.length - 1];
      phases.push({
        name: workload.name,
        reference: workload.reference === true,
        writes: last?.made ?? 0,
        failed: rounds.reduce((sum, round) => sum + round.failed, 0),
        microsPerWrite: Math.round(Math.min(...rounds.map((round) => round.micros))),
        roundsMicrosPerWrite: rounds.map((round) => Math.round(round.micros)),
        watchEvents: rounds.reduce((sum, round) => sum + round.events, 0),
        watchEventsExpected: rounds.reduce((sum, round) => sum + round.expected, 0),
      });
    }
    await Effect.runPromise(Effect.forEach(watchers, Fiber.interrupt, { discard: true }));
    return phases;
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void));
  }
};
