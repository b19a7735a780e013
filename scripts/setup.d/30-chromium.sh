#!/usr/bin/env bash
# Installs Debian's chromium for the proxy status page's browser test, unless
# it is already there. Needs root (the CI machine runs as root).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
