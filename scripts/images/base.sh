#!/usr/bin/env bash
# Builds debian:<suite>-slim (bookworm unless told: `base.sh trixie`) from Debian's mirror with
# debootstrap and imports it into the local engine under the official name, so every
# Dockerfile's FROM resolves without a registry.
set -euo pipefail
SUITE=${1:-bookworm}
case "$SUITE" in
  bookworm) TAG=${BASE_IMAGE:-debian:bookworm-slim} ;;
  trixie) TAG=${BASE_IMAGE_TRIXIE:-debian:trixie-slim} ;;
  *) echo "base: unknown suite $SUITE (bookworm or trixie)" >&2; exit 2 ;;
esac
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if docker image inspect "$TAG" >/dev/null 2>&1 && [ "${REBUILD:-0}" != 1 ]; then
  echo "base: $TAG already present"; exit 0
fi
root=$(mktemp -d /tmp/weft-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$root" "$MIRROR"
# Same apt sources as the official image, and no caches in the layer.
cat >"$root/etc/apt/sources.list" <<SRC
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://deb.debian.org/debian-security $SUITE-security main
SRC
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$TAG"
echo "base: built $TAG"
