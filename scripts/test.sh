#!/usr/bin/env bash
# The one test command (`npm test`): installs the toolchain inside the repository when needed
# (scripts/bootstrap.sh; Go with scripts/ensure-go.sh), then type-checks, lints, checks the
# layering and runs every test. Extra arguments go to vitest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/node_modules/.bin:$PATH"
# Go builds Prometheus's own text parser for the metrics tests (installed into .tools/go when the
# machine has no Go new enough; without one, those tests fail).
if GO_BIN="$(bash scripts/ensure-go.sh | tail -n 1)"; then export PATH="$GO_BIN:$PATH"; fi
echo "== node $(node --version), pnpm $(pnpm --version)"
echo "== typecheck (tsc -b; tests with tsconfig.test.json)"
tsc -b
tsc -p tsconfig.test.json
echo "== lint and format (biome)"
biome check --error-on-warnings .
echo "== layering (layers.json)"
node scripts/check-layers.ts
echo "== tests (vitest)"
mkdir -p .reports
rm -f .reports/vitest.json
vitest run --reporter=default --reporter=json --outputFile.json=.reports/vitest.json "$@"
