#!/usr/bin/env bash
# Makes a Go toolchain new enough for the project's Go code (the `go` line of
# tools/kube-apiserver/go.mod) available, and prints the directory of its `go` on the last line of
# stdout. `npm test` needs it for Prometheus's own text parser (the metrics tests build it from
# packages/engines/test/fixtures/promcheck), the real-cluster tier for the kube-apiserver. In
# order of preference:
#   1. the `go` on PATH, when new enough (the machine's own);
#   2. .tools/go, installed by an earlier run of this script;
#   3. otherwise the newest release of that Go line for this machine, downloaded from the Go module
#      proxy (the first URL of $GOPROXY, default https://proxy.golang.org) and unpacked into
#      .tools/go. The proxy serves every Go release as the module golang.org/toolchain (what the go
#      command itself fetches to switch toolchains), a zip of the distribution, so no Go is needed
#      to get Go. Nothing global is touched.
# Exits non-zero, with a line naming the problem, only when no Go can be had.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
log() { echo "ensure-go: $*" >&2; }

# The Go line the project needs, e.g. "1.26".
WANT="$(awk '$1 == "go" { split($2, v, "."); print v[1] "." v[2]; exit }' "$ROOT/tools/kube-apiserver/go.mod")"
[ -n "$WANT" ] || { log "no go line in tools/kube-apiserver/go.mod"; exit 1; }

# Whether the `go` at $1 is of the line $WANT or newer.
new_enough() {
  local have
  have="$("$1" env GOVERSION 2>/dev/null | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')"
  [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$WANT" "$have" | sort -V | head -1)" = "$WANT" ]
}

if command -v go >/dev/null 2>&1 && new_enough "$(command -v go)"; then
  dirname "$(command -v go)"
  exit 0
fi
if [ -x "$TOOLS/go/bin/go" ] && new_enough "$TOOLS/go/bin/go"; then
  echo "$TOOLS/go/bin"
  exit 0
fi

case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) log "no Go $WANT for this machine's architecture ($(uname -m)); install Go $WANT or newer"; exit 1 ;;
esac
platform="linux-$arch"
[ "$(uname -s)" = Linux ] || { log "downloads Go only for Linux; install Go $WANT or newer"; exit 1; }
proxy="${GOPROXY:-https://proxy.golang.org}"
proxy="${proxy%%[,|]*}"
case "$proxy" in
  http://* | https://*) ;;
  *) proxy=https://proxy.golang.org ;;
esac
proxy="${proxy%/}"
module="$proxy/golang.org/toolchain/@v"

# The newest release of the line, e.g. v0.0.1-go1.26.11.linux-amd64.
version="$(curl -fsSL --retry 3 "$module/list" |
  grep -E "^v0\.0\.1-go${WANT//./\\.}(\.[0-9]+)?\.$platform\$" | sort -V | tail -1 || true)"
[ -n "$version" ] || { log "the Go module proxy ($proxy) lists no Go $WANT for $platform"; exit 1; }
log "installing ${version#v0.0.1-} from $proxy into .tools/go (once)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/go.zip" "$module/$version.zip"
mkdir -p "$work/out"
if command -v unzip >/dev/null 2>&1; then
  unzip -q "$work/go.zip" -d "$work/out"
elif command -v python3 >/dev/null 2>&1; then
  python3 -m zipfile -e "$work/go.zip" "$work/out"
else
  log "neither unzip nor python3 is here to unpack Go; install one of them, or Go $WANT or newer"
  exit 1
fi
unpacked="$work/out/golang.org/toolchain@$version"
[ -f "$unpacked/bin/go" ] || { log "the downloaded archive has no bin/go"; exit 1; }
# Module zips keep no file modes: the commands and the tools are made executable again.
chmod +x "$unpacked"/bin/* "$unpacked"/pkg/tool/*/*
mkdir -p "$TOOLS"
rm -rf "$TOOLS/go.tmp" "$TOOLS/go"
mv "$unpacked" "$TOOLS/go.tmp"
mv "$TOOLS/go.tmp" "$TOOLS/go"
new_enough "$TOOLS/go/bin/go" || { log "the installed Go does not run"; exit 1; }
echo "$TOOLS/go/bin"
