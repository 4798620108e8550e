#!/usr/bin/env bash
# Packs what scripts/gpu-bench/run.sh needs on a bare GPU machine with CUDA, cmake and Python
# but no Node and no registry, into .gpu-bench/ (git-ignored, about 45 MB):
#   node.xz                 this machine's Node binary, and node-include.tar.xz its headers
#   node_modules.tar.xz     node-llama-cpp (the version in package-lock) and its dependencies
#   llama.cpp.tar.xz        the llama.cpp source node-llama-cpp ships, with its patches applied
#   bench.mjs, batching.mjs bench/gpu/run.ts and bench/gpu/batching.ts, bundled
# Then, on the GPU machine, from the repository root: bash scripts/gpu-bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.gpu-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
node_home=$(dirname "$(dirname "$(command -v node)")")
[ -f "$node_home/include/node/node_api.h" ] || { echo "pack: Node's headers not found under $node_home/include/node" >&2; exit 1; }
version=$(node -p "require('./node_modules/node-llama-cpp/package.json').version")
echo "pack: Node $(node -v), node-llama-cpp $version"

xz -T0 -6 -c "$(command -v node)" >"$out/node.xz"
tar -C "$node_home" -cJf "$out/node-include.tar.xz" include/node

echo '{"name":"gpu-bench","private":true}' >"$tmp/package.json"
npm install --prefix "$tmp" --ignore-scripts --omit=optional --no-audit --no-fund --loglevel=error "node-llama-cpp@$version" >/dev/null
tar -C "$tmp" --exclude=node_modules/node-llama-cpp/llama/gitRelease.bundle -cJf "$out/node_modules.tar.xz" node_modules

# Only what a build with tools and without tests or examples reads (models/ alone is 75 MB).
scripts/llama/source.sh node_modules/node-llama-cpp "$tmp/llama.cpp" >/dev/null
(cd "$tmp/llama.cpp" && tar -cJf - --exclude=.git --transform "s,^,llama.cpp/," CMakeLists.txt CMakePresets.json LICENSE cmake common ggml include src tools vendor scripts licenses 2>/dev/null) >"$out/llama.cpp.tar.xz" \
  || tar -C "$tmp" -cJf "$out/llama.cpp.tar.xz" --exclude=.git --exclude=llama.cpp/models llama.cpp

for entry in run:bench batching:batching; do
  npx esbuild "bench/gpu/${entry%%:*}.ts" --bundle --platform=node --format=esm --target=node22 --log-level=warning \
    --external:node-llama-cpp --outfile="$out/${entry##*:}.mjs" \
    --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"
done
du -sh "$out"/*
