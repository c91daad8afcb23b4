#!/usr/bin/env bash
# The whole test suite: type checks, lint, layout, then unit, integration and end-to-end tests.
# The end-to-end tests run the real Prometheus tools, PostgreSQL, Chromium, nginx, openssl, curl and wget (and the jsonnet mixin's tests, jsonnet). When they are missing, this installs them
# on Debian as root, or stops naming the exact command to run; a test never skips silently.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -x /usr/bin/promtool ] || missing+=(prometheus)
[ -x /usr/bin/prometheus-alertmanager ] || missing+=(prometheus-alertmanager)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null || missing+=(openssl)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v curl >/dev/null || missing+=(curl)
command -v wget >/dev/null || missing+=(wget)
command -v jsonnet >/dev/null || missing+=(jsonnet)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]} (needed by the end-to-end tests)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "The tests need ${missing[*]}. Run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

npx tsc -p tsconfig.json --noEmit
npx tsc -p ui/tsconfig.json
# Some tests run the built vigil (dist/main.js) and the status pages' bundle (dist/ui): build them
# from these sources, so that a fresh clone passes and no stale build is tested.
npm run build --silent
# Lint and layout: each reports nothing, or the run stops here (the layer rules run as a test).
npx eslint --max-warnings=0 .
npx prettier --check --log-level=warn .
if [ $# -gt 0 ]; then
  npx vitest run "$@"
else
  # The end-to-end tests wait on real clocks (for: durations, collection schedules, a browser's
  # polling): they run one file at a time, after the rest, so that no other test file competes with
  # them for the machine's two cores. Both runs print their "N passed, N failed" line; the exit code
  # is the first failure's.
  status=0
  npx vitest run --exclude 'test/e2e/**' || status=$?
  npx vitest run test/e2e --no-file-parallelism || status=$?
  exit $status
fi
