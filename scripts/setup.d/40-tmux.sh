#!/usr/bin/env bash
# Installs tmux for the pi extension's terminal tests (integrations/pi/e2e,
# TestTmux*: the real pi TUI driven with send-keys and read with
# capture-pane), unless it is already there. Needs root (the CI machine
# runs as root).
set -euo pipefail
if command -v tmux >/dev/null 2>&1; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends tmux
