#!/usr/bin/env bash
# Installs the project's toolchain inside the repository folder: pnpm into .tools/ (with the
# machine's own npm), then every dependency (including the Node 24 runtime, which is the root
# devDependency "node") with `pnpm install --frozen-lockfile`. Nothing global is touched.
# A second run is cheap: pnpm is reinstalled only when its version changes, and the workspace
# install is skipped when the lockfile has not changed since the last successful install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PNPM_VERSION=12.4.2
TOOLS="$ROOT/.tools"
cd "$ROOT"
if [ "$("$TOOLS/node_modules/.bin/pnpm" --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  echo "bootstrap: installing pnpm $PNPM_VERSION into .tools/" >&2
  npm install --prefix "$TOOLS" --no-save --no-package-lock --no-audit --no-fund --loglevel=error -E "pnpm@$PNPM_VERSION" >&2
fi
export PATH="$ROOT/node_modules/.bin:$TOOLS/node_modules/.bin:$PATH"
STAMP="$ROOT/node_modules/.kopf-install-stamp"
shopt -s nullglob
MANIFESTS=(pnpm-lock.yaml pnpm-workspace.yaml package.json packages/*/package.json examples/*/package.json)
WANT="$(cat "${MANIFESTS[@]}" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$ROOT/node_modules/.bin/node" ] || [ "$(cat "$STAMP" 2>/dev/null || true)" != "$WANT" ]; then
  echo "bootstrap: pnpm install --frozen-lockfile" >&2
  pnpm install --frozen-lockfile --reporter=append-only >&2
  echo "$WANT" > "$STAMP"
fi
