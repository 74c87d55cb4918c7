# Production image: the bundled server (dist/main.js) under plain node, as PID 1, so SIGTERM from
# the platform reaches it and it shuts down cleanly.

# --- build: dependencies with their native modules (better-sqlite3 compiles here), then the bundle
#     (the server, and the browser pages' files in dist/screen/ and dist/participant/, built from
#     web/ and the SDK's sources)
#     On 24.18.1: better-sqlite3 compiled against the headers of Node 24.19 or later aborts the
#     server (SIGABRT) when the garbage collector frees one of its statements outside JavaScript,
#     as idle-time collections do (nodejs/node#65446; see .ci/run). Same ABI as any Node 24.
FROM node:24.18.1-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK workspace: its dependencies (socket.io-client, Yjs, ...) go into the pages' bundles.
COPY client-sdk/package.json ./client-sdk/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
# The message catalogs: the pages' messages files are built from them.
COPY locales ./locales
COPY src ./src
COPY web ./web
COPY client-sdk/src ./client-sdk/src
RUN npm run build && npm prune --omit=dev

# --- run: the same base and major (same Node ABI for the native modules), no compilers, a non-root user
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
# The message catalogs the server says its errors and pages' words from (docs/i18n.md).
COPY locales ./locales
COPY src/modules/templates/catalog ./src/modules/templates/catalog
COPY src/modules/canvas/catalog ./src/modules/canvas/catalog
RUN mkdir -p /data && chown node:node /data
USER node
ENV PORT=8080 DATABASE_PATH=/data/workshops.db FILES_DIR=/data/files
EXPOSE 8080
CMD ["node", "dist/main.js"]
