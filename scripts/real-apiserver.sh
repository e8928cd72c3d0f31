#!/usr/bin/env bash
# A real Kubernetes control plane (etcd + kube-apiserver + garbage collector) on loopback for
# Kopf's tests, built from tools/kube-apiserver with the Go toolchain and the Go module proxy.
#
#   scripts/real-apiserver.sh build       build once; the binary is cached under .cache/ keyed
#                                         by the hash of go.mod, go.sum and the Go sources
#   scripts/real-apiserver.sh start       build if needed, start on 127.0.0.1 (free port), wait
#                                         for /readyz, print the kubeconfig path; a control
#                                         plane that exits during startup is started again
#                                         (three attempts)
#   scripts/real-apiserver.sh kubeconfig  print the running instance's kubeconfig path
#   scripts/real-apiserver.sh stop        stop it and delete its state (etcd data, certificates)
#   scripts/real-apiserver.sh status      exit 0 if it runs and is ready
#
# Environment: KOPF_REAL_STATE (default .cache/real-apiserver/run) holds the pid file and points
# at the state directory, which is a fresh mktemp directory per start. KOPF_REAL_NO_CONTROLLERS=1
# skips the controller manager. KOPF_REAL_EXIT_WITH=PID stops the control plane by itself once
# that process (e.g. the test runner) is gone. KOPF_REAL_BINARY runs that program instead of the
# built one (no build; the script's own tests start a stand-in with it). GOFLAGS defaults to -mod=mod (go.sum pins every module).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/tools/kube-apiserver"
cache="$root/.cache/kube-apiserver"
state="${KOPF_REAL_STATE:-$root/.cache/real-apiserver/run}"
export GOFLAGS="${GOFLAGS:--mod=mod}"

log() { printf 'real-apiserver: %s\n' "$*" >&2; }

key() {
  (cd "$src" && cat go.mod go.sum *.go | sha256sum | cut -c1-16)
}

binary() {
  if [[ -n "${KOPF_REAL_BINARY:-}" ]]; then printf '%s\n' "$KOPF_REAL_BINARY"; return; fi
  printf '%s/%s/kube-apiserver\n' "$cache" "$(key)"
}

build() {
  if [[ -n "${KOPF_REAL_BINARY:-}" ]]; then
    [[ -x "$KOPF_REAL_BINARY" ]] || { log "KOPF_REAL_BINARY=$KOPF_REAL_BINARY is not an executable file"; return 1; }
    return 0
  fi
  local out
  out="$(binary)"
  if [[ -x "$out" ]]; then
    log "cached binary $out"
    return 0
  fi
  command -v go >/dev/null || { log "the Go toolchain (go) is not on PATH"; return 1; }
  mkdir -p "$(dirname "$out")"
  local version
  version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' "$src/go.mod")"
  local major="${version#v}"; major="${major%%.*}"
  local minor="${version#v*.}"; minor="${minor%%.*}"
  local pkg=k8s.io/component-base/version
  log "building kube-apiserver $version (first build downloads ~700 MB of modules and compiles for many minutes)"
  local started=$SECONDS
  (cd "$src" && go build -trimpath -o "$out.tmp" \
    -ldflags "-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" .)
  mv "$out.tmp" "$out"
  log "built $out in $((SECONDS - started))s"
  # Older builds (other hashes) weigh ~120 MB each; keep the three newest, since worktrees or
  # branches on other Kubernetes versions share this cache and would otherwise rebuild each other's.
  ls -1dt "$cache"/*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
}

pid_of() {
  [[ -f "$state/pid" ]] && cat "$state/pid"
}

running() {
  local pid
  pid="$(pid_of 2>/dev/null)" || return 1
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && [[ "$(ps -o stat= -p "$pid" 2>/dev/null)" != Z* ]]
}

start() {
  if running && [[ -f "$(cat "$state/dir")/ready" ]]; then
    log "already running"
    printf '%s/kubeconfig\n' "$(cat "$state/dir")"
    return 0
  fi
  build
  mkdir -p "$state"
  # The program picks its three loopback ports (etcd client and peer, the secure port) by
  # binding and closing port 0, then binds them again; another process's outgoing connection
  # can take such a port in between, and the control plane then exits during startup. Such an
  # exit is retried with fresh ports; a start that hangs is not.
  local attempt status
  for attempt in 1 2 3; do
    status=0
    launch || status=$?
    case "$status" in
      0) return 0 ;;
      3) if ((attempt < 3)); then log "retrying the start (attempt $((attempt + 1)) of 3)"; fi ;;
      *) return 1 ;;
    esac
  done
  return 1
}

# One launch: 0 when ready (the kubeconfig path printed), 3 when the control plane exited
# during startup (its log's tail shown), 1 when it was not ready in time.
launch() {
  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/kopf-real-apiserver.XXXXXX")"
  printf '%s\n' "$dir" >"$state/dir"
  local args=(serve --dir "$dir")
  [[ "${KOPF_REAL_NO_CONTROLLERS:-}" == 1 ]] && args+=(--no-controllers)
  [[ -n "${KOPF_REAL_EXIT_WITH:-}" ]] && args+=(--exit-with "$KOPF_REAL_EXIT_WITH")
  local started=$SECONDS
  # setsid: a session (and process group) of its own, so a terminal's Ctrl-C does not reach it
  # and `stop` can kill the controllers with it. setsid may fork (when the shell has job
  # control), so the pid to stop is the one the program itself writes to $dir/pid.
  setsid "$(binary)" "${args[@]}" >"$dir/apiserver.log" 2>&1 </dev/null &
  local launcher=$!
  while [[ ! -s "$dir/pid" ]] && ((SECONDS - started < 30)); do sleep 0.1; done
  if [[ -s "$dir/pid" ]]; then cp "$dir/pid" "$state/pid"; else printf '%s\n' "$launcher" >"$state/pid"; fi
  while [[ ! -f "$dir/ready" ]]; do
    if ! running; then
      log "the control plane exited during startup; last lines of $dir/apiserver.log:"
      tail -n 30 "$dir/apiserver.log" >&2
      rm -rf "$dir"; rm -f "$state/pid" "$state/dir"
      return 3
    fi
    if ((SECONDS - started > 180)); then
      log "not ready after 180s; see $dir/apiserver.log"
      stop
      return 1
    fi
    sleep 0.2
  done
  log "ready at $(cat "$dir/ready") in $((SECONDS - started))s (pid $(pid_of))"
  printf '%s/kubeconfig\n' "$dir"
}

stop() {
  local pid dir
  pid="$(pid_of 2>/dev/null || true)"
  dir="$(cat "$state/dir" 2>/dev/null || true)"
  if [[ -n "$pid" ]] && running; then
    kill -TERM "$pid"
    for _ in $(seq 1 150); do running || break; sleep 0.2; done
    if running; then
      log "pid $pid did not stop within 30s; killing its process group"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  if [[ -n "$dir" && "$dir" == "${TMPDIR:-/tmp}"/kopf-real-apiserver.* ]]; then rm -rf "$dir"; fi
  rm -f "$state/pid" "$state/dir"
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  kubeconfig)
    running || { log "not running (use: $0 start)"; exit 1; }
    printf '%s/kubeconfig\n' "$(cat "$state/dir")"
    ;;
  status) running && [[ -f "$(cat "$state/dir")/ready" ]] ;;
  *) echo "usage: $0 {build|start|stop|kubeconfig|status}" >&2; exit 2 ;;
esac
