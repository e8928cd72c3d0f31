// Soak test of the watcher, in the benchmark suite (not the default test run):
//   node --conditions=@kopf/source packages/watcher/bench/soak.bench.ts
// Environment: SOAK_BACKEND (emulator | fake), SOAK_OBJECTS (10000), SOAK_CHANGES (50000),
// SOAK_DROP_EVERY (500). 10,000 objects and a stream of changes under random stream drops; the
// event sequence seen per object must match the server's, with a single listing. The scenario
// lives in test/fixtures/Soak.ts; a failure rejects, so Node exits non-zero.
import * as Effect from "effect/Effect";
import { main } from "../test/fixtures/Soak.ts";

await Effect.runPromise(main);
