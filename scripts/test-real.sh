#!/usr/bin/env bash
# The real-cluster tier's commands, each runnable on its own from a fresh clone: installs the
# toolchain inside the repository when needed (scripts/bootstrap.sh, as `npm test` does), builds the
# real kube-apiserver when the command needs one, then runs vitest with the tier's configuration
# (packages/conformance/vitest.real.config.ts; workspace packages resolve to their TypeScript
# sources, so no build of the packages is needed). Extra arguments go to vitest.
#
#   scripts/test-real.sh all          npm run test:real    (every project of the tier)
#   scripts/test-real.sh e2e          npm run test:e2e     (the end-to-end files; e.g. on your cluster
#                                                           with KOPF_TEST_CLUSTER=kubeconfig:PATH)
#   scripts/test-real.sh conformance  npm run conformance  (the emulator against the real server)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/node_modules/.bin:$PATH"
# The kube-apiserver is built with Go (installed into .tools/go when the machine has none new
# enough); on a cluster of your own (`e2e` with KOPF_TEST_CLUSTER) none is needed.
if GO_BIN="$(bash scripts/ensure-go.sh | tail -n 1)"; then export PATH="$GO_BIN:$PATH"; fi
CONFIG=packages/conformance/vitest.real.config.ts
mode="${1:-}"
shift || true
case "$mode" in
  all)
    bash scripts/real-apiserver.sh build
    exec vitest run --config "$CONFIG" "$@"
    ;;
  e2e)
    # No build here: on a cluster of your own no Go is needed; without one, each file's setup
    # starts a fresh control plane (building the binary first if it is not cached).
    exec vitest run --config "$CONFIG" --project e2e "$@"
    ;;
  conformance)
    bash scripts/real-apiserver.sh build
    exec vitest run --config "$CONFIG" packages/conformance "$@"
    ;;
  *)
    echo "usage: scripts/test-real.sh all|e2e|conformance [vitest arguments...]" >&2
    exit 2
    ;;
esac
