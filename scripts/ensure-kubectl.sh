#!/usr/bin/env bash
# Makes a `kubectl` available for the emulator's evidence tests and prints its path on the last
# line of stdout. In order of preference:
#   1. the kubectl on PATH, when it is v1.24 or newer (the machine image's own);
#   2. otherwise, with Go available, a kubectl built once from the Kubernetes Go modules that
#      tools/kube-apiserver pins (v1.36.3), cached under .cache/kubectl/;
#   3. otherwise Debian's `kubernetes-client` package (apt-get; v1.20 on bookworm — older than the
#      emulator serves everything for: it asks for the OpenAPI v2 document in protobuf).
# Exits non-zero only when no kubectl can be had.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

minor_of() { "$1" version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -1; }

if command -v kubectl >/dev/null 2>&1; then
  minor="$(minor_of "$(command -v kubectl)")"
  if [ -n "$minor" ] && [ "$minor" -ge 24 ]; then
    command -v kubectl
    exit 0
  fi
  echo "ensure-kubectl: the kubectl on PATH is too old (minor ${minor:-unknown}); looking for a newer one" >&2
fi

BUILT="$ROOT/.cache/kubectl/kubectl"
if [ -x "$BUILT" ]; then
  echo "$BUILT"
  exit 0
fi
if command -v go >/dev/null 2>&1; then
  echo "ensure-kubectl: building kubectl v1.36.3 from the Kubernetes Go modules (once)" >&2
  mkdir -p "$(dirname "$BUILT")"
  version=v1.36.3
  (cd "$ROOT/tools/kube-apiserver" && GOFLAGS=-mod=mod go build -trimpath -ldflags \
    "-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36 -X k8s.io/client-go/pkg/version.gitVersion=$version" \
    -o "$BUILT.tmp" k8s.io/kubernetes/cmd/kubectl >&2) && mv "$BUILT.tmp" "$BUILT"
  if [ -x "$BUILT" ]; then
    echo "$BUILT"
    exit 0
  fi
  echo "ensure-kubectl: the Go build failed; falling back to Debian's kubernetes-client" >&2
fi

if ! command -v kubectl >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-kubectl: no kubectl, no Go and no apt-get on this machine; install kubectl by hand" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
      echo "ensure-kubectl: not root and no sudo; cannot install kubernetes-client" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq kubernetes-client >&2
fi
command -v kubectl
