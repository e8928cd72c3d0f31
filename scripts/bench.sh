#!/usr/bin/env bash
# `pnpm bench`: the benchmarks, against the emulator over HTTPS. Prints tables and writes JSON
# under .reports/bench/. Not part of `npm test`.
#
#   pnpm bench                 this port and Python Kopf side by side (packages/compat/bench), then
#                              the operator's own figures: 1,000 and 10,000 created objects
#                              (packages/runtime/bench), then the framework's own overhead on the
#                              in-process emulator: 5,000 objects, CPU µs/object and KiB
#                              allocated/object by seam
#                              (packages/runtime/bench/overhead.bench.ts), then scaling out:
#                              watch traffic per replica with and without server-side sharding,
#                              objects/s with 1, 2 and 4 sharded replicas, leader-election
#                              failover (packages/engines/bench/scaleout.bench.ts)
#   pnpm bench --overhead      only the framework-overhead run
#   pnpm bench --scaleout      only the scale-out run
#   pnpm bench --emulator      also the emulator's own writes per CPU-second over HTTPS (target 10,000)
#                              and memory per object (packages/emulator/bench)
#   pnpm bench --soak          also the watcher's soak test (packages/watcher/bench)
#   pnpm bench --all           all three
#   pnpm bench --quick         1,000 objects only, one round
#   pnpm bench --no-peer       without the side-by-side run
#
# BENCH_OPERATOR=source runs our operator from the TypeScript sources instead of the bundled build,
# BENCH_OPERATOR=modules from the packages' unbundled builds.
# BENCH_OBJECTS (e.g. "1000,10000") and BENCH_CONCURRENCY tune the operator scenarios;
# BENCH_OVERHEAD_OBJECTS (default 5000) the framework-overhead run, BENCH_OVERHEAD_TRANSPORT=https
# its client (the live one over HTTPS to the emulator's server instead of the in-process
# transport); BENCH_SHARD_OBJECTS (default 1000) the scale-out run;
# BENCH_SIZES, BENCH_ROUNDS, BENCH_SOAK_CYCLES and BENCH_SOAK_OBJECTS the side-by-side run.
# BENCH_OURS_NODE_ARGS (e.g. "--no-maglev") puts Node.js options before our operator's entry module
# in the side-by-side runs, to see what a V8 flag would change without changing the product.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/node_modules/.bin:$PATH"
mkdir -p .reports/bench

EMULATOR=0
SOAK=0
PEER=1
OVERHEAD_ONLY=0
SCALEOUT_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --emulator) EMULATOR=1 ;;
    --soak) SOAK=1 ;;
    --all) EMULATOR=1; SOAK=1 ;;
    --quick)
      export BENCH_OBJECTS="${BENCH_OBJECTS:-1000}" BENCH_SIZES="${BENCH_SIZES:-1000}"
      export BENCH_ROUNDS="${BENCH_ROUNDS:-1}" BENCH_OVERHEAD_OBJECTS="${BENCH_OVERHEAD_OBJECTS:-1000}" ;;
    --no-peer) PEER=0 ;;
    --overhead) OVERHEAD_ONLY=1 ;;
    --scaleout) SCALEOUT_ONLY=1 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

if [ "$OVERHEAD_ONLY" -eq 1 ]; then
  echo "== framework overhead, in-process emulator (node $(node --version))"
  node --conditions=@kopf/source packages/runtime/bench/overhead.bench.ts
  exit 0
fi

if [ "$SCALEOUT_ONLY" -eq 1 ]; then
  echo "== scaling out, in-process emulator (node $(node --version))"
  node --conditions=@kopf/source packages/engines/bench/scaleout.bench.ts
  exit 0
fi

if [ "$PEER" -eq 1 ]; then
  # Our operator runs as installed: the bundled build (BENCH_OPERATOR=source: the sources).
  [ "${BENCH_OPERATOR:-bundle}" = source ] || pnpm build
  echo "== this port and Python Kopf side by side (node $(node --version))"
  node --conditions=@kopf/source packages/compat/bench/peer.bench.ts
  echo
fi

echo "== operator (node $(node --version))"
node --conditions=@kopf/source --expose-gc packages/runtime/bench/operator.bench.ts
echo
echo "== framework overhead, in-process emulator"
node --conditions=@kopf/source packages/runtime/bench/overhead.bench.ts
echo
echo "== scaling out, in-process emulator"
node --conditions=@kopf/source packages/engines/bench/scaleout.bench.ts

if [ "$EMULATOR" -eq 1 ]; then
  echo
  echo "== emulator"
  node --conditions=@kopf/source --expose-gc packages/emulator/bench/emulator.bench.ts
fi

if [ "$SOAK" -eq 1 ]; then
  echo
  echo "== watcher soak"
  node --conditions=@kopf/source packages/watcher/bench/soak.bench.ts
fi
