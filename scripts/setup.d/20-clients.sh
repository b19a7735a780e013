#!/usr/bin/env bash
# Installs the real clients the proxy's end-to-end tests run
# (Codex CLI, opencode, pi and Gemini CLI), exactly as pinned by testclients/package-lock.json.
#
# Not `npm ci`: opencode-ai lists optional binary packages for every
# platform, and the registry reachable here does not serve some of them
# (opencode-darwin-arm64, opencode-windows-x64, …), so the lockfile cannot
# name them and `npm ci` refuses it as out of sync. `npm install` against the
# committed lockfile installs exactly its versions; the lockfile must come
# out unchanged, or this step fails.
set -euo pipefail
command -v npm >/dev/null || { echo "20-clients.sh: npm is not installed (Node 20 or 22 with npm is required)" >&2; exit 1; }
[ "${1:-}" = --check ] && exit 0
source "$(dirname "$0")/node22.bash"
cd "$(dirname "$0")/../../testclients"
locked=$(mktemp)
trap 'rm -f "$locked"' EXIT
cp package-lock.json "$locked"
npm install --no-audit --no-fund
if ! cmp -s package-lock.json "$locked"; then
  cp "$locked" package-lock.json
  echo "setup: npm changed testclients/package-lock.json; the pinned clients are not what it locks" >&2
  exit 1
fi
