# syntax=docker/dockerfile:1
# Node 24, the current LTS. BASE_IMAGE lets a build use a local copy of node:24-bookworm-slim (scripts/image-test.sh makes
# one when no registry is reachable). Podman and buildah: build with `--format docker`, or the
# OCI format drops the HEALTHCHECK.
ARG BASE_IMAGE=node:24-bookworm-slim

# Build: compile TypeScript and the SQLite addon, then cut node_modules down to what runs.
FROM ${BASE_IMAGE} AS build
# tini: a real PID 1 that forwards signals; copied into the runtime image below.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The node image ships Node's headers: a compiled addon needs no download from nodejs.org.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# better-sqlite3 downloads a prebuilt addon when it can; only when that fails is the C++ toolchain
# installed and the addon compiled.
RUN npm ci --no-audit --no-fund \
 || { apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/* && npm ci --no-audit --no-fund; }
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY ui ./ui
COPY scripts/image-prune.mjs ./scripts/
# The status pages' script and style are built here as `npm run build:ui` does, without a source map.
RUN npx tsc -p tsconfig.build.json --sourceMap false \
 && npx esbuild ui/app.ts --bundle --format=esm --target=es2020 --minify --outfile=dist/ui/app.js \
 && cp ui/style.css ui/favicon.svg dist/ui/ \
 && npm prune --omit=dev --no-audit --no-fund \
 && node scripts/image-prune.mjs /app

# Run: only what vigil needs, as the unprivileged `node` user (uid 1000, gid 1000).
FROM ${BASE_IMAGE}
# MALLOC_ARENA_MAX=2: the C library's allocator keeps two arenas, not eight per core, so memory one
# thread frees (the socket reads of a collection, a decoded answer's bytes) serves the next thread's
# allocations instead of staying resident in an arena of its own. At a million series, 70-160 MiB
# less RSS after a collection and a lower peak, for the same CPU; at 1x, within the noise
# (docs/performance.md, "Two allocator arenas").
ENV NODE_ENV=production MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /usr/bin/tini-static /usr/bin/tini
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# /var/lib/vigil holds the alert store: a bind mount must be writable by uid 1000
# (`chown -R 1000:1000 DIR`); vigil names the fix if it is not.
RUN mkdir -p /etc/vigil /var/lib/vigil && chown node:node /var/lib/vigil
USER node
VOLUME ["/var/lib/vigil"]
EXPOSE 9810
# Follows the address vigil listens on (its --web.listen-address flag, else its config).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["node", "dist/healthcheck.js"]
# tini forwards SIGTERM to vigil; a SIGTERM that lands before Node has set up its handlers ends
# vigil by the signal itself, which `-e 143` reports as the clean stop it is.
# The config path is part of the entrypoint, so flags given after the image name (which replace
# CMD) keep it; a later --config.file wins.
# --single-threaded-gc: each thread collects its own garbage. V8's parallel and concurrent collector
# threads cost more CPU than they save on the few cores vigil gets: measured at 8x (535,000 series,
# docs/performance.md, "A million series"), a collection took ~22 % less CPU with it.
# --max-semi-space-size=4: the main thread's young generation, at most two semi-spaces of 4 MiB
# (Node 24 grows it to 128 MiB, Node 20 to 32). It answers scrapes from bytes made elsewhere and
# needs little; vigil's other threads size their own (docs/performance.md, "The main thread's
# young generation, the decoding threads' garbage").
# --no-memory-reducer: the main thread runs no extra full collections once quiet, which compact its
# whole heap and held a scrape up to 64 ms at a million series; vigil's other threads keep them
# (docs/performance.md, "The main thread without V8's memory reducer").
# --expose-gc: a decoding thread collects its garbage once it has been idle for a second (the
# garbage of whole answers, kept otherwise until V8's next full collection).
ENTRYPOINT ["/usr/bin/tini", "-e", "143", "--", "node", "--single-threaded-gc", "--max-semi-space-size=4", "--no-memory-reducer", "--expose-gc", "dist/main.js", "--config.file=/etc/vigil/vigil.yml"]
CMD []
# Last, so that a new revision reuses every layer above.
ARG VIGIL_REVISION=unknown
ARG VIGIL_BRANCH=unknown
ENV VIGIL_REVISION=${VIGIL_REVISION} VIGIL_BRANCH=${VIGIL_BRANCH}
