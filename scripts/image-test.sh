#!/usr/bin/env bash
# Builds the Dockerfile with buildah and checks the image with podman (runc, host network,
# loopback only). Needs root (or rootless podman), buildah, podman, runc, curl; debootstrap when no
# registry serves node:24-bookworm-slim. Caches in $VIGIL_IMAGE_CACHE (default ~/.cache/vigil-image):
# the stand-in base's root filesystem and npm's cache for the build stage.
#   VIGIL_BASE_IMAGE=ref   build on this base instead of pulling or making one
#   VIGIL_IMAGE_BUDGET_MB  what vigil may add to the base image (default 30; it adds 18)
set -euo pipefail
cd "$(dirname "$0")/.."
image=localhost/vigil:image-test
cache=${VIGIL_IMAGE_CACHE:-$HOME/.cache/vigil-image}
budget_mb=${VIGIL_IMAGE_BUDGET_MB:-30}
work=$(mktemp -d /var/tmp/vigil-image-test.XXXXXX)
containers=()
cleanup() {
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
ok() { echo "  ok   $*"; }
bad() { echo "  FAIL $*"; failures=$((failures + 1)); }
step() { echo "== image: $*"; }

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_http() { # url, seconds
  for _ in $(seq 1 $(($2 * 5))); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.2; done
  return 1
}
# run NAME [podman run options...] -- [vigil flags...]: a detached container on the host network.
run() {
  local name=$1; shift
  local opts=() ; while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
  containers+=("$name")
  podman rm -f -t 0 "$name" >/dev/null 2>&1 || true # left over by an interrupted run
  podman run -d --name "$name" --network host --runtime runc "${podman_extra[@]}" "${opts[@]}" "$image" "$@" \
    >/dev/null 2>>"$work/podman.log" || { bad "podman run $name failed: $(grep -v timer "$work/podman.log" | tail -1)"; return 0; }
}
# A one-off command in the image (entrypoint replaced).
in_image() { local entry=$1; shift; podman run --rm --runtime runc "${podman_extra[@]}" --entrypoint "$entry" "$image" "$@" 2>>"$work/podman.log"; }

step "base"
base=${VIGIL_BASE_IMAGE:-}
if [ -z "$base" ]; then
  if timeout 60 podman pull -q docker.io/library/node:24-bookworm-slim >/dev/null 2>&1; then
    base=docker.io/library/node:24-bookworm-slim
  else
    base=localhost/vigil-base:node24-bookworm
    echo "no registry serves node:24-bookworm-slim: using the local stand-in $base"
    bash scripts/image-base.sh "$base"
  fi
fi

step "build (buildah, --format docker so the HEALTHCHECK is kept)"
mkdir -p "$cache/npm"
start=$SECONDS
buildah build --quiet --format docker --pull=never --layers --runtime runc \
  --build-arg BASE_IMAGE="$base" --build-arg VIGIL_REVISION="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" --build-arg VIGIL_BRANCH="$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)" \
  -v "$cache/npm:/root/.npm" -t "$image" . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
echo "built $image on $base in $((SECONDS - start)) s"

# Some sandboxes refuse runc's setting of the container's rlimits (RLIMIT_NPROC/NOFILE): podman's
# default ulimits ask runc to set them. Then the containers keep the limits they inherit
# (containers.conf `default_ulimits = []`), or, where setting them needs CAP_SYS_RESOURCE in the
# bounding set, get that capability (vigil runs as uid 1000 and has no effective capability).
podman_extra=()
probe() { podman run --rm --runtime runc "$@" --entrypoint true "$image" 2>>"$work/probe.log"; }
if ! probe; then
  grep -q 'error setting rlimit' "$work/probe.log" || { cat "$work/probe.log"; exit 1; }
  printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
  if CONTAINERS_CONF="$work/containers.conf" probe; then
    export CONTAINERS_CONF="$work/containers.conf"
    echo "runc may not set rlimits here: containers keep the limits they inherit (default_ulimits = [])"
  elif probe --cap-add SYS_RESOURCE; then
    podman_extra=(--cap-add SYS_RESOURCE)
    echo "runc may not set rlimits here: containers get --cap-add SYS_RESOURCE"
  else
    cat "$work/probe.log"; exit 1
  fi
fi

step "image metadata"
user=$(podman image inspect --format '{{.Config.User}}' "$image")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] && ok "runs as user $user" || bad "image user is '${user:-root}'"
podman image inspect --format '{{json .Config.Healthcheck}}' "$image" | grep healthcheck.js >/dev/null \
  && ok "HEALTHCHECK kept" || bad "no HEALTHCHECK in the image (built without --format docker?)"
podman image inspect --format '{{json .Config.Env}}' "$image" | grep '"MALLOC_ARENA_MAX=2"' >/dev/null \
  && ok "the allocator keeps two arenas (MALLOC_ARENA_MAX=2)" || bad "no MALLOC_ARENA_MAX=2 in the image's environment"

step "no build leftovers"
base_size=$(podman image inspect --format '{{.Size}}' "$base")
size=$(podman image inspect --format '{{.Size}}' "$image")
added_mb=$(((size - base_size) / 1024 / 1024))
[ "$added_mb" -le "$budget_mb" ] && ok "adds $added_mb MB to the base (budget $budget_mb MB)" \
  || bad "adds $added_mb MB to the base, over the budget of $budget_mb MB"
in_image /bin/sh -c '
  for p in /app/src /app/simulators /app/dist/simulators /app/tsconfig.json /app/scripts /app/node_modules/.bin \
    /app/node_modules/typescript /app/node_modules/vitest /app/node_modules/tsx /app/node_modules/prebuild-install \
    /app/node_modules/better-sqlite3/deps /app/node_modules/better-sqlite3/src /app/node_modules/better-sqlite3/binding.gyp \
    /app/node_modules/better-sqlite3/build/Release/obj /app/node_modules/better-sqlite3/build/Release/obj.target \
    /app/node_modules/better-sqlite3/build/Release/.deps /app/node_modules/better-sqlite3/build/Makefile \
    /usr/bin/g++ /usr/bin/make /usr/bin/python3 /root/.npm /root/.cache; do [ -e "$p" ] && echo "$p"; done
  find /app \( -name "*.map" -o -name "*.d.ts" -o -name "*.o" -o -name "*.a" -o -name "*.gyp" -o -name "*.cc" \) -print
  find /app -type d -empty -print
  echo checked' >"$work/leftovers" || true
if [ "$(cat "$work/leftovers")" = checked ]; then ok "no forbidden paths"
else bad "leftovers in the image (or the check did not run):"; head -20 "$work/leftovers"; fi
# The current LTS: Node 20 reached its end of life on 2026-04-30.
node_in_image=$(in_image node --version || true)
case "$node_in_image" in v24.*) ok "runs Node $node_in_image" ;; *) bad "runs Node '$node_in_image', not 24" ;; esac
# Every runtime dependency of package.json must still load after the pruning.
deps=$(node -p "Object.keys(require('./package.json').dependencies).join(' ')")
in_image node --input-type=module -e "
  const failed = [];
  for (const d of '$deps'.split(' ')) await import(d).catch((e) => failed.push(d + ': ' + e.message));
  const Database = (await import('better-sqlite3')).default;
  new Database(':memory:').prepare('select 1').get();
  if (failed.length) { console.error(failed.join('\n')); process.exit(1); }" \
  && ok "every dependency loads, the SQLite addon opens a database" || bad "a runtime dependency does not load"

step "serves, healthy, as non-root, on the config's and on another listen address"
port=$(free_port); port2=$(free_port); sinkport=$(free_port)
mkdir -p "$work/etc" "$work/data"
chown 1000:1000 "$work/data"
printf 'sink-token-%s\n' "$RANDOM$RANDOM" >"$work/etc/sink-token"
chmod 0644 "$work/etc/sink-token"
cat >"$work/etc/vigil.yml" <<YAML
web:
  listen_address: 127.0.0.1:$port
alert_sink:
  bearer_token_file: /etc/vigil/sink-token
YAML
mounts=(-v "$work/etc:/etc/vigil:ro" -v "$work/data:/var/lib/vigil")
run vigil-it-a "${mounts[@]}" --read-only --read-only-tmpfs=false --
url=http://127.0.0.1:$port
if wait_http "$url/readyz" 60; then
  for path in /healthz /readyz /metrics / /ui/app.js /ui/style.css; do
    curl -fsS -o /dev/null "$url$path" && ok "GET $path" || bad "GET $path"
  done
  ok "starts with a read-only root filesystem"
else
  bad "not ready on $url within 60 s (read-only root filesystem)"; podman logs vigil-it-a 2>&1 | tail -20
fi
uid=$(podman exec vigil-it-a id -u || echo unknown)
[ "$uid" != 0 ] && [ "$uid" != unknown ] && ok "process uid $uid" || bad "process runs as root"
podman healthcheck run vigil-it-a >/dev/null 2>&1 && ok "HEALTHCHECK passes (config's address)" || bad "HEALTHCHECK fails on the config's address"

mkdir -p "$work/data-b"; chown 1000:1000 "$work/data-b"
# Only the flag after the image name, as the README shows: the config path stays the image's.
run vigil-it-b -v "$work/etc:/etc/vigil:ro" -v "$work/data-b:/var/lib/vigil" -- --web.listen-address=127.0.0.1:$port2
wait_http "http://127.0.0.1:$port2/healthz" 60 || bad "not serving on the flag's address"
podman healthcheck run vigil-it-b >/dev/null 2>&1 && ok "HEALTHCHECK passes (--web.listen-address=127.0.0.1:$port2)" \
  || bad "HEALTHCHECK fails with --web.listen-address"
podman stop -t 2 vigil-it-b >/dev/null 2>&1 || true
podman stop -t 2 vigil-it-a >/dev/null 2>&1 || true
podman healthcheck run vigil-it-a >/dev/null 2>&1 && bad "HEALTHCHECK passes on a stopped vigil" || ok "HEALTHCHECK fails when vigil is down"

step "the sink's store in the mounted /var/lib/vigil survives a restart"
run vigil-it-c "${mounts[@]}" --read-only --read-only-tmpfs=false --
wait_http "$url/readyz" 60 || bad "not ready after a restart"
code=$(curl -sS -o "$work/post" -w '%{http_code}' -H "authorization: Bearer $(cat "$work/etc/sink-token")" \
  -H 'content-type: application/json' --data-binary @test/fixtures/alertmanager/firing.json "$url/webhook/alertmanager")
[ "$code" = 200 ] && ok "webhook stored (200)" || { bad "webhook answered $code: $(cat "$work/post")"; }
podman stop -t 2 vigil-it-c >/dev/null 2>&1 || true
run vigil-it-d "${mounts[@]}" --read-only --read-only-tmpfs=false --
wait_http "$url/readyz" 60 || bad "not ready after a restart"
fingerprint=$(node -p "require('./test/fixtures/alertmanager/firing.json').alerts[0].fingerprint")
curl -fsS -H "authorization: Bearer $(cat "$work/etc/sink-token")" "$url/api/v1/alerts" | grep "$fingerprint" >/dev/null && ok "alert $fingerprint still there after a restart" \
  || bad "the stored alert is gone after a restart"
podman stop -t 2 vigil-it-d >/dev/null 2>&1 || true

step "a root-owned /var/lib/vigil names the fix; the sink alone waits for it"
mkdir -p "$work/rootdata"; chown 0:0 "$work/rootdata"; chmod 0755 "$work/rootdata"
run vigil-it-e -v "$work/etc:/etc/vigil:ro" -v "$work/rootdata:/var/lib/vigil" --
wait_http "$url/healthz" 60 || bad "not serving with an unwritable store directory"
# /readyz answers from the start; the sink says what it lacks once it has tried its store
for _ in $(seq 1 50); do
  curl -sS "$url/readyz" >"$work/rootready" 2>&1 || true
  grep -q 'chown -R 1000:1000' "$work/rootready" && break
  sleep 0.2
done
grep -q 'chown -R 1000:1000' "$work/rootready" && ok "/readyz says: $(grep -o 'not writable[^;]*' "$work/rootready" | head -1)" \
  || { bad "/readyz does not name the fix:"; head -c 600 "$work/rootready"; echo; }
curl -fsS -o /dev/null "$url/metrics" && ok "/metrics still served while the sink waits" || bad "/metrics not served"
# Read into a file, not piped into grep -q: under pipefail, grep leaving at the first match made
# podman's later writes fail (SIGPIPE, 141) and the check with them, whenever more lines followed.
for _ in $(seq 1 25); do
  podman logs vigil-it-e >"$work/rootlog" 2>&1 || true
  grep -q 'chown -R 1000:1000' "$work/rootlog" && break
  sleep 0.2
done
grep -q 'chown -R 1000:1000' "$work/rootlog" && ok "the log names the fix" || { bad "the log does not name the fix:"; tail -5 "$work/rootlog"; }
chown 1000:1000 "$work/rootdata"
wait_http "$url/readyz" 60 && ok "ready by itself once the directory is given to uid 1000" || bad "not ready after the chown"
podman stop -t 2 vigil-it-e >/dev/null 2>&1 || true

step "SIGTERM at any moment stops it within 2 s with exit 0 (podman stop -t 2 would SIGKILL: 137)"
for delay in 0 0.05 0.1 0.2 0.3 0.5 1 ready; do
  name=vigil-it-term-${delay/./_}
  run "$name" "${mounts[@]}" --read-only --read-only-tmpfs=false --
  if [ "$delay" = ready ]; then wait_http "$url/readyz" 60 || bad "not ready"; else sleep "$delay"; fi
  podman stop -t 2 "$name" >/dev/null 2>&1 || true
  status=$(podman inspect --format '{{.State.ExitCode}}' "$name")
  [ "$status" = 0 ] && ok "SIGTERM after $delay s: exit 0" || bad "SIGTERM after $delay s: exit $status"
  podman rm -f -t 0 "$name" >/dev/null
done

if [ "$failures" -gt 0 ]; then echo "image check: $failures failure(s)"; exit 1; fi
echo "image check: all passed"
