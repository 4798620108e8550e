#!/usr/bin/env bash
# The cache key of a CPU build of node-llama-cpp's addon: node-llama-cpp's version, the llama.cpp
# release it ships, this build's recipe (build-addon.sh, builder.Dockerfile, Weft's addon patches) and the CPU's
# instruction-set flags (GGML_NATIVE compiles for exactly those).
#   scripts/llama/build-key.sh [node-llama-cpp dir]   →  3.22.1-v0.5.0-r1a2b3c4d-cpu5e6f7a8b
set -euo pipefail
here=$(dirname "$0")
nlc=${1:-$here/../../node_modules/node-llama-cpp}
version=$(node -p "require('$(realpath "$nlc")/package.json').version")
release=$(node -p "require('$(realpath "$nlc")/llama/llama.cpp.info.json').tag")
recipe=$(cat "$here/build-addon.sh" "$here/source.sh" "$here/builder.Dockerfile" "$here"/addon-patches/*.diff | sha256sum | cut -c1-8)
flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2 | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
cpu=$(printf '%s' "$flags" | sha256sum | cut -c1-8)
echo "$version-$release-r$recipe-cpu$cpu"
