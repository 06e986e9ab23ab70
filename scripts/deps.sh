#!/usr/bin/env bash
# Installs the Debian packages gpuecon needs to build and test, if any are missing.
# Uses sudo when not root. Usage: scripts/deps.sh [--test] [--optional]
#   (default: build deps; --test adds test tools; --optional adds gnuplot, chromium and node/npm,
#   then `npm ci` in tests/browser for the browser test's playwright-core, from its lockfile)
set -euo pipefail

pkgs=(build-essential cmake pkg-config libfyaml-dev libjansson-dev libcivetweb-dev)
for arg in "$@"; do
  case "$arg" in
    --test) pkgs+=(libcmocka-dev clang libomp-dev python3 python3-venv python3-jsonschema) ;;
    --optional)
      pkgs+=(gnuplot-nox chromium)
      optional=1
      # Debian's nodejs and npm, unless a node with its own npm is already installed
      command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
      command -v npm >/dev/null 2>&1 || pkgs+=(npm) ;;
    *) echo "scripts/deps.sh: unknown argument $arg (allowed: --test --optional)" >&2; exit 2 ;;
  esac
done

npm_ci() {
  [ "${optional:-0}" = 1 ] || return 0
  local dir
  dir="$(dirname "$0")/../tests/browser"
  if [ ! -d "$dir/node_modules/playwright-core" ]; then
    echo "npm ci in tests/browser (playwright-core for the browser test)"
    (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
  fi
}

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then npm_ci; exit 0; fi

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
npm_ci
