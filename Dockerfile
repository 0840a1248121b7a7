# The Kassa proxy as a container: `docker build -t kassa .` (or podman). Settings come from the
# environment (`--env-file`), never from build arguments, which would stay in an image layer.
# The same image runs the emulator for trying things out: `kassa-sandbox --host 0.0.0.0` (compose.yaml).

# 1. The package, built and packed from the sources exactly as `npm pack` makes it for merchants.
FROM node:20-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/kassa-*.tgz /tmp/kassa.tgz

# 2. The package installed with its runtime dependencies only; better-sqlite3 compiles here when no
#    prebuilt binary can be downloaded, so the compilers stay in this stage.
FROM node:20-bookworm-slim AS install
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/kassa
COPY --from=pack /tmp/kassa.tgz /tmp/kassa.tgz
RUN echo '{"name":"kassa-runtime","private":true}' > package.json \
  && npm install --omit=dev --no-audit --no-fund /tmp/kassa.tgz \
  && npm cache clean --force

# 3. What runs: Node, the installed package, an unprivileged user and a volume for the SQLite file.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8787 KASSA_DB=/data/kassa.db PATH=/opt/kassa/node_modules/.bin:$PATH
COPY --from=install /opt/kassa /opt/kassa
# The image's `node` user (uid 1000) owns the data and nothing else.
RUN mkdir -p /data && chown node:node /data
USER node
WORKDIR /data
VOLUME /data
EXPOSE 8787
# /livez: the process serves requests (/healthz is its alias); /readyz also asks the upstreams.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["kassa-proxy"]
