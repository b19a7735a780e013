#!/usr/bin/env bash
# Installs Debian's chromium for the proxy status page's browser test, unless
# it is already there. Installing needs root (the CI machine runs as root);
# with --check (scripts/test runs every step so before installing anything)
# it only says whether it could, and for a contributor who is not root
# prints the command that installs it.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  cat >&2 <<'MSG'
30-chromium.sh: the status page's browser test needs Debian's chromium (/usr/bin/chromium),
which is not installed, and installing it needs root. Install it, then run scripts/test again:

  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium

MSG
  exit 1
fi
[ "${1:-}" = --check ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
