#!/usr/bin/env bash
# The chaos suite (`npm run chaos`): kills (in virtual time, and SIGKILL of `kopf run` processes) and
# API faults against operators on the emulator, with
# the figures printed and every figure that must be zero asserted (vitest.chaos.config.ts).
# Extra arguments go to vitest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/node_modules/.bin:$PATH"
vitest run --config vitest.chaos.config.ts "$@"
