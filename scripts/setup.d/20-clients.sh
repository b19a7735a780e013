#!/usr/bin/env bash
# Installs the real Responses clients the proxy's end-to-end tests run
# (Codex CLI and opencode), exactly as pinned by testclients/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../../testclients"
npm ci --no-audit --no-fund
