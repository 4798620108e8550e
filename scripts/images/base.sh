#!/usr/bin/env bash
# Builds debian:bookworm-slim from Debian's mirror with debootstrap and imports it into the local
# engine under the official name, so every Dockerfile's FROM resolves without a registry.
set -euo pipefail
TAG=${BASE_IMAGE:-debian:bookworm-slim}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if docker image inspect "$TAG" >/dev/null 2>&1 && [ "${REBUILD:-0}" != 1 ]; then
  echo "base: $TAG already present"; exit 0
fi
root=$(mktemp -d /tmp/weft-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR"
# Same apt sources as the official image, and no caches in the layer.
cat >"$root/etc/apt/sources.list" <<SRC
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SRC
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$TAG"
echo "base: built $TAG"
