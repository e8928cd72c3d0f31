#!/usr/bin/env bash
# Makes `kubectl` available for the emulator's evidence tests: keeps the one on PATH, otherwise
# installs Debian's `kubernetes-client` package (apt-get update + install, with sudo when not
# root). Prints the client version and exits non-zero only when kubectl cannot be had.
set -euo pipefail

if ! command -v kubectl >/dev/null 2>&1; then
  echo "kubectl not found; installing Debian's kubernetes-client package" >&2
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-kubectl: no kubectl and no apt-get on this machine; install kubectl by hand" >&2
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

if ! command -v kubectl >/dev/null 2>&1; then
  echo "ensure-kubectl: kubernetes-client installed but kubectl is still not on PATH" >&2
  exit 1
fi
version="$(kubectl version --client 2>/dev/null || true)"
echo "${version%%$'\n'*}"
