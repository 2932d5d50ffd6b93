# Linkline's container image (docs/operations.md, "Container image").
#
#   docker build -t linkline .
#   docker run -d -p 8080:8080 -v linkline-data:/data linkline      # prints the first API token in its log
#
# Two stages: `build` installs every dependency (TypeScript and the linters included), compiles dist/
# and prunes the development dependencies;
# the image itself gets dist/, the production node_modules and package.json, and nothing else.
#
# BASE_IMAGE: any Debian- or Ubuntu-based image with Node.js 22.14+, 24 or 26 in /usr/local (the
# official node images; CI builds a stand-in from Debian packages: scripts/container-check.sh).
# Behind a TLS-inspecting proxy, give its CA certificate to npm without writing it into a layer:
#   docker build --secret id=ca,src=/path/to/ca.pem .
# and the usual HTTP_PROXY / HTTPS_PROXY / NO_PROXY build arguments reach apt and npm as they are.
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
WORKDIR /src
# Dependencies first, in a layer of their own: rebuilt only when the lockfile changes. `--ignore-scripts`
# because `prepare` builds dist/, whose sources are not here yet. No dependency needs an install
# script: better-sqlite3 ships prebuilt binaries (glibc and musl Linux, x64 and arm64) in its package,
# loaded from node_modules/better-sqlite3/prebuilds. Only where none fits (another CPU) is it compiled
# here, with a toolchain that stays in this stage and the headers of the image's own Node.js.
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --ignore-scripts \
 && if ! node -e "new (require('better-sqlite3'))(':memory:')" 2>/dev/null; then \
      apt-get update \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
      && (cd node_modules/better-sqlite3 && npm_config_nodedir=/usr/local npm run build-release); \
    fi \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
COPY . .
# Build; drop the tests, benchmarks and client SDK from dist/, the development dependencies, and what
# the driver needs only to compile (its C sources, the prebuilt binaries of other platforms), and the
# packages' type declarations, source maps and change logs (their licence files stay).
RUN npm run build \
 && rm -rf dist/test dist/bench dist/sdk \
 && find dist \( -name '*.test.js' -o -name '*.test.js.map' \) -delete \
 && npm prune --omit=dev --ignore-scripts \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/Release/obj.target build/Release/.deps build/deps build/Release/sqlite3.a build/Release/test_extension.node \
 && find prebuilds -name '*.node' ! -name "linux-$(node -p process.arch).node" -delete \
 && cd /src \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \
      -o -iname 'changelog*' -o -iname 'readme*' \) -delete \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

FROM ${BASE_IMAGE}
# A system user of its own, with fixed ids (10001) so that a bind-mounted /data can be chowned to it.
RUN groupadd --system --gid 10001 linkline \
 && useradd --system --uid 10001 --gid linkline --home-dir /app --no-create-home --shell /usr/sbin/nologin linkline \
 && mkdir -p /data \
 && chown linkline:linkline /data
WORKDIR /app
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# `linkline` on PATH for the CLI: `docker exec <container> linkline tokens create --owner alice`.
RUN ln -s /app/dist/src/cli/main.js /usr/local/bin/linkline
# The defaults an image needs: listen on every interface of the container (the port is published,
# or reached by a proxy on the container network) and keep the SQLite database in the volume, with
# the webhook secret key file (also with PostgreSQL, whose instances then share the volume).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/linkline.db \
    LINKLINE_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
USER 10001:10001
# node is PID 1 and handles SIGTERM itself (src/main.ts: stop accepting, finish requests, flush the
# buffered visits, close the database, exit 0); it starts no child processes, so there is nothing to
# reap. No npm or shell in between: they would take the signal instead of the server.
STOPSIGNAL SIGTERM
# Liveness: 200 while the process serves (`/readyz` also checks the database). Uses node itself, as
# the image has no curl. Docker runs it; podman only with `podman build --format docker`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
