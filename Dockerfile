# syntax=docker/dockerfile:1
# Build: compile TypeScript (and any native addon) with the full toolchain.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY simulators ./simulators
ARG VIGIL_REVISION=unknown
RUN npm run build && npm prune --omit=dev

# Run: only what vigil needs, as the unprivileged `node` user.
FROM node:20-bookworm-slim
ARG VIGIL_REVISION=unknown
ENV NODE_ENV=production VIGIL_REVISION=${VIGIL_REVISION}
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /etc/vigil /var/lib/vigil && chown node:node /var/lib/vigil
USER node
# The config is mounted at /etc/vigil/vigil.yml (token files beside it); state lives in /var/lib/vigil.
VOLUME ["/var/lib/vigil"]
EXPOSE 9810
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9810/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/main.js"]
CMD ["--config.file=/etc/vigil/vigil.yml"]
