#!/usr/bin/env bash
# Stages the CUDA inference image's context: node-llama-cpp's CUDA prebuilt at the version the
# lock file pins for node-llama-cpp (the app image's version), the Dockerfile and its check.
# Only @node-llama-cpp/linux-x64-cuda: the -cuda-ext package is a CUDA 12 fallback that needs
# CUDA 12 libraries this image does not have.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: stage-inference-cuda.sh <dir>}
rm -rf "$out" && mkdir -p "$out/node_modules/@node-llama-cpp"

version=$(node -p "require('./package-lock.json').packages['node_modules/node-llama-cpp'].version")
tarball=$(cd "$out" && npm pack --silent "@node-llama-cpp/linux-x64-cuda@$version")
mkdir -p "$out/node_modules/@node-llama-cpp/linux-x64-cuda"
tar -xzf "$out/$tarball" -C "$out/node_modules/@node-llama-cpp/linux-x64-cuda" --strip-components=1
rm "$out/$tarball"
cp docker/inference-cuda.Dockerfile "$out/Dockerfile"
cp scripts/images/check-cuda-image.sh "$out/check-cuda-image.sh"
echo "staged @node-llama-cpp/linux-x64-cuda@$version ($(du -sh "$out/node_modules" | cut -f1))"
