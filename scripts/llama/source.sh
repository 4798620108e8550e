#!/usr/bin/env bash
# Checks out the llama.cpp source node-llama-cpp ships (llama/gitRelease.bundle) into DEST and
# applies node-llama-cpp's patches to it (llama/patches), as its own `source download` does.
#   scripts/llama/source.sh [node-llama-cpp dir] DEST
set -euo pipefail
nlc=${1:?node-llama-cpp directory}
dest=${2:?destination}
bundle=$nlc/llama/gitRelease.bundle
[ -f "$bundle" ] || { echo "source: $bundle not found; run npm install first" >&2; exit 1; }
command -v git >/dev/null || { echo "source: git not found (apt-get install git)" >&2; exit 1; }
rm -rf "$dest"
git -c advice.detachedHead=false clone --quiet "$bundle" "$dest"
for patch in "$nlc"/llama/patches/*.diff; do
  [ -f "$patch" ] || continue
  # A patch already in this release (node-llama-cpp skips those too) is left out.
  if git -C "$dest" apply --check "$(realpath "$patch")" 2>/dev/null; then
    git -C "$dest" apply "$(realpath "$patch")"
    echo "source: applied $(basename "$patch")"
  else
    echo "source: $(basename "$patch") does not apply (already in this release); skipped"
  fi
done
