#!/usr/bin/env bash
# Installs the Debian packages gpuecon needs to build and test, if any are missing.
# Uses sudo when not root. Usage: scripts/deps.sh [--test] [--optional]
#   (default: build deps; --test adds test tools; --optional adds gnuplot and chromium)
set -euo pipefail

pkgs=(build-essential cmake pkg-config libfyaml-dev libjansson-dev)
for arg in "$@"; do
  case "$arg" in
    --test) pkgs+=(libcmocka-dev clang libomp-dev python3 python3-venv python3-jsonschema) ;;
    --optional) pkgs+=(gnuplot-nox chromium) ;;
    *) echo "scripts/deps.sh: unknown argument $arg (allowed: --test --optional)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "scripts/deps.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
