# The standalone server in a container. Not built on the project's machines (they reach no container registry);
# see "Docker" in README.md.
#   docker build -t petstore-mock .
#   docker run --rm -p 4010:4010 petstore-mock --admin-token change-me
# Listening on 0.0.0.0 turns the admin API (/__mock) off unless --admin-token (or PETSTORE_ADMIN_TOKEN) is set.

# Stage 1: build and pack, exactly as `npm publish` would (prepack cleans dist/ and builds it).
FROM node:20-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/petstore-mock-*.tgz /tmp/petstore-mock.tgz

# Stage 2: the packed package and its msw peer, nothing else (msw 2: msw 3 needs Node 22).
FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=pack /tmp/petstore-mock.tgz /tmp/petstore-mock.tgz
RUN npm init -y >/dev/null \
  && npm install --omit=dev --no-audit --no-fund /tmp/petstore-mock.tgz "msw@^2.12.0" \
  && rm /tmp/petstore-mock.tgz && npm cache clean --force
USER node
ENV PETSTORE_HOST=0.0.0.0 PETSTORE_PORT=4010
EXPOSE 4010
# node as PID 1: the CLI itself handles SIGTERM/SIGINT (finishes in-flight requests, saves --state-file, exits 0).
ENTRYPOINT ["node", "/app/node_modules/petstore-mock/dist/src/cli.js"]
