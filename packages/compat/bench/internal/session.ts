// One operator's run against a fresh emulator, as the benchmarks measure it: a new emulator over
// HTTPS with its own kubeconfig, the benchmark's namespace with one object in it, then the
// operator started (so its first object exists before it starts) and waited for until it has
// handled that object; the body gets the operator, the client and the seconds from spawning the
// operator to that first object handled. Everything is stopped and removed afterwards.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Client from "./client.ts";
import { type Child, type Peer, startEmulator, startOperator } from "./processes.ts";

/** The namespace the benchmarks' operators serve. */
export const NS = "bench";

export const withOperator = async <A>(
  options: {
    readonly root: string;
    readonly peer: Peer;
    readonly python: string | undefined;
    /** The handler file without its extension (`.js` for this port, `.py` for Kopf). */
    readonly handlers: string;
    /** This port's entry module, when not the one BENCH_OPERATOR names. */
    readonly cli?: string;
    /** Node.js options before this port's entry module, when not BENCH_OURS_NODE_ARGS. */
    readonly nodeArgs?: ReadonlyArray<string>;
  },
  body: (op: Child, client: Client.BenchClient, started: number) => Promise<A>,
): Promise<A> => {
  const dir = mkdtempSync(join(tmpdir(), "kopf-peer-bench-"));
  const kubeconfig = join(dir, "kubeconfig");
  const emulator = await startEmulator(options.root, kubeconfig);
  const client = Client.make(kubeconfig, NS);
  try {
    await client.createNamespace();
    await client.create(["first"]);
    const spawned = performance.now();
    const op = startOperator({ ...options, namespace: NS, kubeconfig });
    try {
      await op.waitFor("created", 1, 120_000);
      const started = (performance.now() - spawned) / 1000;
      return await body(op, client, started);
    } finally {
      await op.stop();
    }
  } finally {
    await client.close();
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};
