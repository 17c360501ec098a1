# The standalone server in a container. Not built on the project's machines (they run no container engine);
# see "Docker" in README.md.
#   docker build -t petstore-mock .
#   docker run --rm -p 4010:4010 petstore-mock --admin-token change-me
#   docker run --rm -p 4010:4010 -v petstore-state:/data petstore-mock --admin-token change-me --state-file /data/state.json
# Listening on 0.0.0.0 turns the admin API (/__mock) off unless --admin-token (or PETSTORE_ADMIN_TOKEN) is set;
# /__mock/health and /__mock/openapi.json stay public, so the HEALTHCHECK below and load balancers can probe it.

# Stage 1: install from the lock file and build.
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Stage 2: the runtime dependencies (stage 1's install, pruned), and the build.
FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json scripts/server-packages.mjs ./
COPY --from=build /src/node_modules ./node_modules
# The build stage's install from the lock file, pruned to what runs: the library's dependencies and the server's
# optional packages (decisions/029), which server-packages.mjs makes dependencies at their locked versions.
RUN node server-packages.mjs && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm server-packages.mjs && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY scenarios ./scenarios
# Where a --state-file lives (`-v petstore-state:/data ... --state-file /data/state.json`, the run line at the top). Its
# log and temp files go beside it, so node must be able to write the folder: a new named volume mounted here starts as
# a copy of this folder, ownership included. VOLUME comes after the chown: later changes to a volume's folder are dropped.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
ENV PETSTORE_HOST=0.0.0.0 PETSTORE_PORT=4010
EXPOSE 4010
# Healthy when /__mock/health says "ok" ("degraded": a --state-file that cannot be written).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PETSTORE_PORT || 4010) + '/__mock/health').then((r) => r.json()).then((b) => process.exit(b.status === 'ok' ? 0 : 1), () => process.exit(1))"]
# node as PID 1: the CLI itself handles SIGTERM/SIGINT (finishes in-flight requests, saves --state-file, exits 0).
# The server sets no V8 flag of its own (decisions/021-v8-flags-belong-to-the-operator.md); these are for a container
# given one CPU (`docker run --cpus 1`): the collector on the server's thread, not on helper threads taking that CPU
# mid-request, and a 16 MB semi-space whatever the memory limit. With several CPUs, V8's defaults:
#   docker run --entrypoint node petstore-mock /app/dist/src/cli/main.js
ENTRYPOINT ["node", "--max-semi-space-size=16", "--single-threaded-gc", "/app/dist/src/cli/main.js"]
