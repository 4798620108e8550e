#!/usr/bin/env bash
# Installs a CPU build of node-llama-cpp's addon (a Release folder from cached-build.sh) as
# node-llama-cpp's "last build", the layout its getLlama('lastBuild') reads:
# llama/localBuilds/<folder>/{Release, buildDone.status} and llama/lastBuild.json. The worker
# (LLAMA_BINARY=auto) then loads it instead of the prebuilt.
#   scripts/llama/install-addon.sh <Release folder> <node-llama-cpp dir>
set -euo pipefail
release=${1:?Release folder}
nlc=${2:?node-llama-cpp directory}
[ -f "$release/llama-addon.node" ] || { echo "install-addon: $release has no llama-addon.node" >&2; exit 1; }
[ -f "$nlc/package.json" ] || { echo "install-addon: $nlc is not node-llama-cpp" >&2; exit 1; }
folder=linux-x64-weft-cpu
out=$nlc/llama/localBuilds/$folder
rm -rf "$out" && mkdir -p "$out"
cp -a "$release" "$out/Release"
touch "$out/buildDone.status"
echo "{\"folderName\": \"$folder\"}" >"$nlc/llama/lastBuild.json"
